/// <reference lib="dom" />
/**
 * Upload files as knowledge on a bot's knowledge page: drop several files on
 * the card or pick them, each is sent on its own (POST
 * /api/dashboard/chatbots/{key}/knowledge/files, multipart) with its own
 * progress bar, so one refused file (its type, its size, the bot's file
 * limit) says why beside its name while the others go on. Once uploaded,
 * reading and indexing show in the sources table, where a file that cannot
 * be read shows its reason.
 */
import { h } from "../../../inbox/src/dom.ts";
import type { ScreenContext } from "../screen.ts";
import { loadSession } from "../session_store.ts";

const ACCEPT = ".pdf,.docx,.md,.markdown,.html,.htm,.txt,.text,.csv";
const MAX_BYTES = 20 * 1024 * 1024;

interface UploadAnswer {
  status: number;
  body: { message?: string; errors?: Record<string, string[]>; data?: { title: string } };
}

/** One file over XMLHttpRequest: fetch has no upload progress. */
function send(
  url: string,
  token: string,
  file: File,
  onProgress: (fraction: number) => void,
): Promise<UploadAnswer> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.setRequestHeader("authorization", `Bearer ${token}`);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: UploadAnswer["body"] = {};
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = { message: `The server answered ${xhr.status}.` };
      }
      resolve({ status: xhr.status, body });
    };
    xhr.onerror = () => resolve({ status: 0, body: { message: "The upload was cut off." } });
    const form = new FormData();
    form.append("file", file, file.name);
    xhr.send(form);
  });
}

export function fileUploadCard(ctx: ScreenContext, key: string, added: () => void): HTMLElement {
  const list = h("ul", { class: "uploads" });
  const input: HTMLInputElement = h("input", {
    type: "file",
    multiple: true,
    accept: ACCEPT,
    name: "files",
    hidden: true,
  });
  const upload = async (file: File) => {
    const bar: HTMLProgressElement = h("progress", { max: 1, value: 0 });
    const state = h("span", { class: "muted", "data-upload-state": "" }, "Uploading…");
    const item = h(
      "li",
      { "data-upload": file.name },
      h("span", { class: "upload-name" }, file.name),
      bar,
      state,
    );
    list.append(item);
    if (file.size > MAX_BYTES) {
      bar.remove();
      item.dataset.result = "refused";
      state.className = "field-error";
      state.textContent = "Too large: a knowledge file may be at most 20 MiB.";
      return;
    }
    const token = loadSession()?.token ?? ctx.session.token;
    const url = `/api/dashboard/chatbots/${encodeURIComponent(key)}/knowledge/files`;
    const r = await send(url, token, file, (f) => (bar.value = f));
    bar.value = 1;
    if (r.status === 201) {
      item.dataset.result = "uploaded";
      state.textContent = "Uploaded: being read and indexed.";
      added();
    } else {
      item.dataset.result = "refused";
      state.className = "field-error";
      state.textContent = Object.values(r.body.errors ?? {})[0]?.[0] ?? r.body.message ??
        `The upload failed (${r.status}).`;
    }
  };
  const take = (files: FileList | null | undefined) => {
    // Several at once: each has its own request and line; they run side by side.
    for (const file of files ?? []) void upload(file);
  };
  input.addEventListener("change", () => {
    take(input.files);
    input.value = "";
  });
  const zone = h(
    "div",
    { class: "drop-zone", "data-drop-zone": "" },
    h(
      "p",
      null,
      "Drop files here, or ",
      h("button", {
        type: "button",
        onClick: () => input.click(),
      }, "choose files"),
      ".",
    ),
    h(
      "p",
      { class: "muted" },
      "PDF, Word (.docx), Markdown, HTML, text or CSV; up to 20 MiB each, 200 files a bot. " +
        "A CSV with question and answer columns becomes Q&A.",
    ),
    input,
  );
  zone.addEventListener("dragover", (e) => {
    e.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    take(e.dataTransfer?.files);
  });
  return h("div", { class: "card upload-files" }, h("h2", null, "Upload files"), zone, list);
}
