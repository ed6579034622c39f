/**
 * POST /api/portal/chatbots/{key}/knowledge/files and the dashboard's
 * /api/dashboard/chatbots/{key}/knowledge/files: a knowledge source from an
 * uploaded file (multipart/form-data, a `file` part and an optional
 * `title`). A raw route because the body is a file, not JSON; it speaks the
 * house's errors: 401/403 as the surface's procedures, 413 past the size
 * limit (declared or streamed), 422 `{message, errors}` naming `file` or
 * `title`. The domain action is domain/knowledge/upload_file_source.ts.
 */
import { z } from "zod";
import type { AppDeps } from "../domain/deps.ts";
import type { RawRoute } from "./raw_routes.ts";
import type { DescribedOperation } from "./openapi/document.ts";
import type { Ability } from "../db/tokens.ts";
import { describeError } from "../app/logger.ts";
import { authenticate } from "../domain/auth/tokens.ts";
import { can } from "../domain/auth/permissions.ts";
import { Forbidden, Invalid } from "../domain/errors.ts";
import { toErrorReply } from "./doors/http_errors.ts";
import { errorResponse, jsonResponse } from "./doors/rest_door.ts";
import { BodyTooLarge, readBodyBytes } from "./doors/request_body.ts";
import { type UploadedFile, uploadFileSource } from "../domain/knowledge/upload_file_source.ts";
import {
  ACCEPTED_EXTENSIONS,
  CSV_MAX_ROWS,
  FILE_MAX_BYTES,
  FILES_PER_BOT,
  PDF_MAX_PAGES,
  UPLOAD_BODY_LIMIT,
} from "../domain/knowledge/file_limits.ts";
import { sourceSchema } from "./schemas/knowledge_source.ts";
import { rejectUnstorableInput } from "./guards/storable_input.ts";
import { dashboardSource } from "./dashboard/knowledge.ts";

const PERMISSION = "manage-content" as const;
const TITLE_MAX = 200;
const MIB = FILE_MAX_BYTES / 1024 / 1024;

interface Surface {
  name: "portal" | "dashboard";
  ability: Ability;
  /** The surface's own gate after the token (portal enabled; a dashboard role). */
  gate(auth: Awaited<ReturnType<typeof authenticate>>): void;
  output: z.ZodType;
}

const SURFACES: Surface[] = [
  {
    name: "portal",
    ability: "portal",
    gate(auth) {
      if (!auth.workspace.portalEnabled) {
        throw new Forbidden("The white-label portal is not enabled for this workspace.");
      }
    },
    output: sourceSchema,
  },
  {
    name: "dashboard",
    ability: "dashboard",
    gate(auth) {
      if (!can(auth.user.role, "view-dashboard")) {
        throw new Forbidden(
          "The dashboard is for owners, administrators and viewers. Agents work in the inbox at /inbox.",
        );
      }
    },
    output: dashboardSource,
  },
];

const FILE_LIMIT_TEXT = `a knowledge file may be at most ${MIB} MiB (${
  FILE_MAX_BYTES.toLocaleString("en-US")
} bytes)`;

/** 413: the body past the route's limit, or the file in it past the file limit. */
class FileTooLarge extends Error {
  constructor(body: boolean) {
    super(
      body
        ? `The request body is too large: this route accepts at most ${
          UPLOAD_BODY_LIMIT.toLocaleString("en-US")
        } bytes, a file and its multipart envelope; ${FILE_LIMIT_TEXT}.`
        : `The file is too large: ${FILE_LIMIT_TEXT}.`,
    );
  }
}

async function readUpload(req: Request): Promise<UploadedFile> {
  // The size first, from Content-Length, before anything else is looked at.
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > UPLOAD_BODY_LIMIT) throw new FileTooLarge(true);
  const type = req.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data/i.test(type)) {
    throw Invalid.field("file", "Send the file as multipart/form-data, in a part named file.");
  }
  let bytes: Uint8Array;
  try {
    bytes = await readBodyBytes(req, UPLOAD_BODY_LIMIT);
  } catch (err) {
    if (err instanceof BodyTooLarge) throw new FileTooLarge(true);
    throw err;
  }
  let form: FormData;
  try {
    form = await new Response(bytes as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": type },
    }).formData();
  } catch {
    throw Invalid.field("file", "The multipart body could not be read: send a part named file.");
  }
  const file = form.get("file");
  if (!(file instanceof File)) {
    throw Invalid.field("file", "The file field is required: a part named file holding the file.");
  }
  if (file.size > FILE_MAX_BYTES) throw new FileTooLarge(false);
  const title = form.get("title");
  if (title !== null && typeof title !== "string") {
    throw Invalid.field("title", "The title field must be a string.");
  }
  if (title && [...title].length > TITLE_MAX) {
    throw Invalid.field(
      "title",
      `The title field must not be greater than ${TITLE_MAX} characters.`,
    );
  }
  // Control characters are dropped from the name: it is shown as the title.
  const fileName = [...(file.name || "upload")].filter((c) => c >= " ").join("").slice(0, 255);
  // A NUL or a lone surrogate in the title is a 422, not a database fault.
  rejectUnstorableInput({ title });
  return { fileName, bytes: new Uint8Array(await file.arrayBuffer()), title: title ?? undefined };
}

function handler(surface: Surface) {
  return async (req: Request, params: string[], deps: AppDeps, ip: string) => {
    const onFault = (err: unknown) => deps.log.error("unhandled error", describeError(err));
    try {
      const now = deps.clock();
      const auth = await authenticate(
        deps.sql,
        req.headers.get("authorization"),
        surface.ability,
        now,
        ip,
      );
      surface.gate(auth);
      if (!can(auth.user.role, PERMISSION)) {
        throw new Forbidden(`Your role does not have the ${PERMISSION} permission.`);
      }
      const key = params[0]!;
      if (key.length > 255) {
        throw Invalid.field("key", "The key field must not be greater than 255 characters.");
      }
      const upload = await readUpload(req);
      const view = await uploadFileSource(deps, auth.workspace.id, key, upload);
      return jsonResponse(201, { data: surface.output.parse(view) });
    } catch (err) {
      await req.body?.cancel().catch(() => {});
      if (err instanceof FileTooLarge) return jsonResponse(413, { message: err.message });
      return errorResponse(toErrorReply(err, onFault));
    }
  };
}

const DESCRIPTION = "Upload one file as a knowledge source: `multipart/form-data` with a part " +
  "`file` (and an optional `title`, up to 200 characters; the file's name otherwise). " +
  `Read: PDF, Word (.docx), Markdown, HTML, plain text and CSV (${
    ACCEPTED_EXTENSIONS.join(", ")
  }). ` +
  "A CSV with a question and an answer column becomes a `qa` source of its pairs; any other " +
  "file a `text` source. 201 with the source `pending`; its text is read and indexed in the " +
  "background (`processing`, then `ready`, or `failed` with `error` saying why: an encrypted " +
  "PDF, a PDF without a text layer, a damaged file). " +
  `Limits: ${MIB} MiB per file (413 past it, refused before the body is read when ` +
  `Content-Length says so), ${FILES_PER_BOT} files per bot (422), ${PDF_MAX_PAGES} pages per ` +
  `PDF and ${CSV_MAX_ROWS.toLocaleString("en-US")} rows per CSV. Deleting the source deletes ` +
  "the stored file.";

function operation(surface: Surface): DescribedOperation {
  return {
    name: `${surface.name}.uploadKnowledgeFile`,
    meta: {
      openapi: {
        method: "POST",
        path: `/api/${surface.name}/chatbots/{key}/knowledge/files`,
        summary: "Add a knowledge source from an uploaded file, read and indexed in the background",
        description: DESCRIPTION,
        created: true,
      },
      auth: surface.ability,
      permission: PERMISSION,
    },
    input: z.object({ key: z.string().min(1).max(255) }),
    output: z.object({ data: surface.output }),
    requestBody: {
      required: true,
      content: {
        "multipart/form-data": {
          schema: {
            type: "object",
            required: ["file"],
            properties: {
              file: { type: "string", format: "binary", description: "The file, its name kept" },
              title: { type: "string", maxLength: TITLE_MAX },
            },
          },
          encoding: { file: { contentType: "application/octet-stream" } },
        },
      },
    },
  };
}

export const knowledgeUploadRoutes: RawRoute[] = SURFACES.map((surface) => ({
  method: "POST",
  pattern: ["api", surface.name, "chatbots", null, "knowledge", "files"],
  template: `/api/${surface.name}/chatbots/{key}/knowledge/files`,
  handle: handler(surface),
  openapi: operation(surface),
}));
