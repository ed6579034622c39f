/**
 * Knowledge files the upload tests and the bench generate: real PDFs (with
 * pdf-lib, headings set larger than the body), an encrypted PDF, a PDF with
 * no text layer, a Word document (a minimal OOXML package, zipped with
 * fflate: the `docx` writer brings @types/node, whose assert types break the
 * suite's type check), and damaged files.
 */
import { PDFDocument, rgb, StandardFonts } from "@cantoo/pdf-lib";
import { strToU8, zipSync } from "fflate";

export interface PdfSection {
  heading: string;
  paragraphs: string[];
}

/**
 * A PDF of `pages`, each a list of sections: an 18 pt bold heading over 11 pt
 * body lines; `footer` draws a 9 pt line at the foot of each page.
 */
export async function pdfWithHeadings(
  pages: PdfSection[][],
  footer?: (page: number) => string,
): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const body = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  for (const [n, sections] of pages.entries()) {
    const page = doc.addPage([595, 842]);
    if (footer) page.drawText(footer(n + 1), { x: 56, y: 30, size: 9, font: body });
    let y = 790;
    for (const section of sections) {
      page.drawText(section.heading, { x: 56, y, size: 18, font: bold });
      y -= 30;
      for (const paragraph of section.paragraphs) {
        for (const line of wrap(paragraph, 90)) {
          page.drawText(line, { x: 56, y, size: 11, font: body });
          y -= 14;
        }
        y -= 10;
      }
      y -= 12;
    }
  }
  return await doc.save();
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** A PDF that opens only with a password. */
export async function encryptedPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText("Confidential price list.", { x: 56, y: 700, size: 12, font });
  doc.encrypt({ userPassword: "open sesame", ownerPassword: "owner secret" });
  return await doc.save();
}

/** A "scanned" PDF: shapes on every page, no text layer. */
export async function textlessPdf(pages = 2): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) {
    const page = doc.addPage();
    for (let r = 0; r < 20; r++) {
      page.drawRectangle({
        x: 50,
        y: 700 - r * 30,
        width: 400,
        height: 12,
        color: rgb(0.2, 0.2, 0.2),
      });
    }
  }
  return await doc.save();
}

/** A Word document: each section a Heading 1 (or 2) over its paragraphs, styles named as Word does. */
export function docxWithHeadings(sections: (PdfSection & { level?: 1 | 2 })[]): Uint8Array {
  const esc = (t: string) => t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const para = (text: string, style?: string) =>
    `<w:p>${
      style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ""
    }<w:r><w:t xml:space="preserve">${esc(text)}</w:t></w:r></w:p>`;
  const body = sections.map((s) =>
    para(s.heading, s.level === 2 ? "Heading2" : "Heading1") +
    s.paragraphs.map((p) => para(p)).join("")
  ).join("");
  const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
  const style = (id: string, name: string, level: number) =>
    `<w:style w:type="paragraph" w:styleId="${id}"><w:name w:val="${name}"/>` +
    `<w:pPr><w:outlineLvl w:val="${level}"/></w:pPr></w:style>`;
  const ct = "application/vnd.openxmlformats-officedocument.wordprocessingml";
  return zipSync({
    "[Content_Types].xml": strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        `<Override PartName="/word/document.xml" ContentType="${ct}.document.main+xml"/>` +
        `<Override PartName="/word/styles.xml" ContentType="${ct}.styles+xml"/></Types>`,
    ),
    "_rels/.rels": strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    ),
    "word/_rels/document.xml.rels": strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>',
    ),
    "word/styles.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><w:styles ${W}>` +
        style("Heading1", "heading 1", 0) + style("Heading2", "heading 2", 1) + "</w:styles>",
    ),
    "word/document.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>${body}</w:body></w:document>`,
    ),
  });
}

/** Bytes that start like a zip (a .docx) and then break off. */
export function corruptDocx(): Uint8Array {
  const bytes = new Uint8Array(2048);
  bytes.set([0x50, 0x4b, 0x03, 0x04]);
  for (let i = 4; i < bytes.length; i++) bytes[i] = (i * 31) % 251;
  return bytes;
}

/** A PDF header over garbage. */
export function corruptPdf(): Uint8Array {
  const head = new TextEncoder().encode("%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >>\n");
  const bytes = new Uint8Array(1024);
  bytes.set(head);
  for (let i = head.length; i < bytes.length; i++) bytes[i] = (i * 17) % 256;
  return bytes;
}

/** POST a file as multipart/form-data to `path` (a `file` part, optional `title`). */
export async function uploadFile(
  baseUrl: string,
  path: string,
  token: string,
  file: { name: string; bytes: Uint8Array; type?: string },
  title?: string,
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: Record<string, unknown> & { data?: any } }> {
  const form = new FormData();
  form.append(
    "file",
    new File([file.bytes as Uint8Array<ArrayBuffer>], file.name, {
      type: file.type ?? "application/octet-stream",
    }),
  );
  if (title !== undefined) form.append("title", title);
  const res = await fetch(baseUrl + path, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const text = await res.text();
  // Anything but JSON (a proxy's own error page) is kept as the message.
  let body: Record<string, unknown>;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = { message: text };
  }
  return { status: res.status, body };
}
