/**
 * Headless Chromium for the browser tests: Debian's `/usr/bin/chromium`
 * driven by playwright-core, with the flags this closed network needs
 * (without the background-networking ones Chromium keeps dialling out and
 * failing), and a clear message when it is not installed.
 */
import { type Browser, chromium, type Page } from "playwright-core";
import { PASSWORD } from "./fixtures.ts";

export const CHROMIUM = "/usr/bin/chromium";

export async function launchChromium(): Promise<Browser> {
  await Deno.stat(CHROMIUM).catch(() => {
    throw new Error(`Chromium is required at ${CHROMIUM}: apt-get install -y chromium`);
  });
  return await chromium.launch({
    executablePath: CHROMIUM,
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
