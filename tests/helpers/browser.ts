/**
 * Headless Chromium for the browser tests, driven by playwright-core, with
 * the flags this closed network needs (without the background-networking ones
 * Chromium keeps dialling out and failing), and a clear message when it is
 * not installed.
 *
 * Debian's `chromium-headless-shell` is preferred when installed: the same
 * Chromium build's headless shell, which is what Playwright itself runs for
 * headless pages. The full browser's headless mode also runs the browser's
 * own UI: alone on CI's two cores the dashboard's test spent 41 s of CPU in
 * Chromium against 14 s in the shell (docs/BENCHMARKS.md, "The suite's time
 * on CI's machine"). CHROMIUM_PATH picks another binary.
 */
import { type Browser, chromium, type Page } from "playwright-core";
import { PASSWORD } from "./fixtures.ts";

const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";
const FULL_BROWSER = "/usr/bin/chromium";

/** The binary the tests drive: CHROMIUM_PATH, else the headless shell, else the full browser. */
export async function chromiumPath(): Promise<string> {
  const chosen = Deno.env.get("CHROMIUM_PATH");
  if (chosen) return chosen;
  for (const path of [HEADLESS_SHELL, FULL_BROWSER]) {
    if (await Deno.stat(path).then(() => true, () => false)) return path;
  }
  throw new Error(
    `Chromium is required at ${HEADLESS_SHELL} or ${FULL_BROWSER}: ` +
      "apt-get install -y chromium-headless-shell (or chromium)",
  );
}

export async function launchChromium(): Promise<Browser> {
  return await chromium.launch({
    executablePath: await chromiumPath(),
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Opens `url` (the inbox or the dashboard) in `page` and submits its sign-in form. */
export async function signInAt(
  page: Page,
  url: string,
  email: string,
  password: string = PASSWORD,
): Promise<void> {
  await page.goto(url);
  await page.locator("input[name=email]").fill(email);
  await page.locator("input[name=password]").fill(password);
  await page.locator("input[name=password]").press("Enter");
}
