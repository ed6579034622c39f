/**
 * A small SMTP server for tests: speaks enough RFC 5321 (EHLO/HELO, MAIL,
 * RCPT, DATA, RSET, NOOP, QUIT) for nodemailer to deliver to it, and keeps
 * each mail's envelope, headers and decoded text body.
 */

export interface SunkMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  raw: string;
}

export interface SmtpSink {
  url: string;
  mails: SunkMail[];
  waitFor(count: number, timeoutMs?: number): Promise<SunkMail[]>;
  stop(): Promise<void>;
}

function decodeQuotedPrintable(text: string): string {
  const soft = text.replace(/=\r?\n/g, "");
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const c = soft[i]!;
    if (c === "=" && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...new TextEncoder().encode(c));
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

function parseMail(raw: string, from: string, to: string[]): SunkMail {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
  let body = raw.slice(split + 4);
  const header = (name: string) =>
    new RegExp(`^${name}:\\s*(.*)$`, "im").exec(head)?.[1]?.trim() ?? "";
  const cte = header("Content-Transfer-Encoding").toLowerCase();
  if (cte === "quoted-printable") body = decodeQuotedPrintable(body);
  if (cte === "base64") {
    body = new TextDecoder().decode(
      Uint8Array.from(atob(body.replace(/\s+/g, "")), (c) => c.charCodeAt(0)),
    );
  }
  return { from, to, subject: header("Subject"), text: body.replace(/\r\n/g, "\n"), raw };
}

export function startSmtpSink(): SmtpSink {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const mails: SunkMail[] = [];
  const conns = new Set<Deno.Conn>();
  const enc = new TextEncoder();

  const serve = async (conn: Deno.Conn) => {
    conns.add(conn);
    const write = (line: string) => conn.write(enc.encode(line + "\r\n"));
    const decoder = new TextDecoder();
    let buffer = "";
    let inData = false;
    let from = "";
    let to: string[] = [];
    const chunk = new Uint8Array(65536);
    try {
      await write("220 sink.test ESMTP ready");
      while (true) {
        const n = await conn.read(chunk);
        if (n === null) break;
        buffer += decoder.decode(chunk.subarray(0, n), { stream: true });
        while (true) {
          if (inData) {
            const end = buffer.indexOf("\r\n.\r\n");
            if (end < 0) break;
            const raw = buffer.slice(0, end).replace(/\r\n\.\./g, "\r\n.");
            buffer = buffer.slice(end + 5);
            inData = false;
            mails.push(parseMail(raw, from, to));
            await write("250 2.0.0 queued");
            continue;
          }
          const eol = buffer.indexOf("\r\n");
          if (eol < 0) break;
          const line = buffer.slice(0, eol);
          buffer = buffer.slice(eol + 2);
          const verb = line.slice(0, 4).toUpperCase();
          if (verb === "EHLO") await write("250-sink.test\r\n250-8BITMIME\r\n250 SMTPUTF8");
          else if (verb === "HELO") await write("250 sink.test");
          else if (verb === "MAIL") {
            from = /<([^>]*)>/.exec(line)?.[1] ?? "";
            to = [];
            await write("250 2.1.0 ok");
          } else if (verb === "RCPT") {
            to.push(/<([^>]*)>/.exec(line)?.[1] ?? "");
            await write("250 2.1.5 ok");
          } else if (verb === "DATA") {
            inData = true;
            await write("354 end with <CRLF>.<CRLF>");
          } else if (verb === "QUIT") {
            await write("221 2.0.0 bye");
            return;
          } else if (verb === "RSET" || verb === "NOOP") await write("250 ok");
          else await write("502 5.5.2 not implemented");
        }
      }
    } catch {
      // The client went away.
    } finally {
      conns.delete(conn);
      try {
        conn.close();
      } catch { /* already closed */ }
    }
  };

  const accepting = (async () => {
    for await (const conn of listener) void serve(conn);
  })().catch(() => {});

  const port = (listener.addr as Deno.NetAddr).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async waitFor(count, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (mails.length < count) {
        if (Date.now() > until) throw new Error(`${mails.length} of ${count} mails arrived`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return mails;
    },
    async stop() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* already closed */ }
      }
      await accepting;
    },
  };
}
