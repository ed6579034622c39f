/**
 * A local Web Push service over TLS, for tests and the benchmark. It issues
 * subscriptions the way a browser does (a P-256 key pair and an auth secret
 * per subscription, kept here), and for every push it receives it checks the
 * VAPID header (RFC 8292: an ES256 JWT whose audience is this origin, signed
 * by the key in `k`) and really decrypts the body (RFC 8291 aes128gcm:
 * ECDH + HKDF + AES-GCM with WebCrypto), recording the plaintext. A push it
 * cannot verify or decrypt is answered 400 and recorded with the reason.
 *
 * The TLS certificate is issued by a throwaway CA made with openssl; the
 * server under test trusts it through PUSH_CA_FILE (push delivery only).
 */

export interface TestSubscription {
  id: string;
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface ReceivedPush {
  subscriptionId: string;
  // deno-lint-ignore no-explicit-any
  payload: any;
  vapid: { aud: string; sub: string; exp: number; publicKey: string };
  headers: Headers;
  at: number;
}

export interface PushService {
  origin: string;
  /** `host:port` for PUSH_ALLOW_HOSTS. */
  hostPort: string;
  caFile: string;
  received: ReceivedPush[];
  /** Pushes refused here (bad VAPID, undecryptable body), with the reason. */
  rejected: { subscriptionId: string; reason: string }[];
  subscribe(): Promise<TestSubscription>;
  /** Answer the next pushes to this subscription with these statuses (then 201 again). */
  respondWith(subscriptionId: string, ...statuses: number[]): void;
  /** Hold every answer this long (latency in benchmarks). */
  setDelay(ms: number): void;
  /** Hold the next answer to this subscription this long (time-out tests). */
  stallNext(subscriptionId: string, ms: number): void;
  waitFor(
    predicate: (p: ReceivedPush) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedPush>;
  stop(): Promise<void>;
}

const enc = new TextEncoder();

export function b64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromB64url(text: string): Uint8Array<ArrayBuffer> {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const padded = b64 + "=".repeat((4 - (b64.length % 4)) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function hkdf(
  salt: Uint8Array<ArrayBuffer>,
  ikm: Uint8Array<ArrayBuffer>,
  info: Uint8Array<ArrayBuffer>,
  bytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const key = await crypto.subtle.importKey("raw", ikm, "HKDF", false, ["deriveBits"]);
  return new Uint8Array(
    await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt, info }, key, bytes * 8),
  );
}

interface Keys {
  privateKey: CryptoKey;
  publicRaw: Uint8Array<ArrayBuffer>;
  auth: Uint8Array<ArrayBuffer>;
}

/** RFC 8291 §3.4 and RFC 8188: decrypt one aes128gcm push message body. */
export async function decryptPush(body: Uint8Array<ArrayBuffer>, keys: Keys): Promise<string> {
  if (body.length < 21) throw new Error("body shorter than the aes128gcm header");
  const salt = body.slice(0, 16);
  const rs = new DataView(body.buffer, body.byteOffset + 16, 4).getUint32(0);
  const idLen = body[20]!;
  const asPublic = body.slice(21, 21 + idLen);
  const ciphertext = body.slice(21 + idLen);
  if (idLen !== 65 || asPublic[0] !== 4) throw new Error("keyid is not an uncompressed P-256 key");
  if (ciphertext.length > rs) throw new Error("more than one record");
  const asKey = await crypto.subtle.importKey(
    "raw",
    asPublic,
    { name: "ECDH", namedCurve: "P-256" },
    false,
    [],
  );
  const ecdhSecret = new Uint8Array(
    await crypto.subtle.deriveBits({ name: "ECDH", public: asKey }, keys.privateKey, 256),
  );
  const keyInfo = concat(enc.encode("WebPush: info\0"), keys.publicRaw, asPublic);
  const ikm = await hkdf(keys.auth, ecdhSecret, keyInfo, 32);
  const cek = await hkdf(salt, ikm, enc.encode("Content-Encoding: aes128gcm\0"), 16);
  const nonce = await hkdf(salt, ikm, enc.encode("Content-Encoding: nonce\0"), 12);
  const aesKey = await crypto.subtle.importKey("raw", cek, "AES-GCM", false, ["decrypt"]);
  const padded = new Uint8Array(
    await crypto.subtle.decrypt({ name: "AES-GCM", iv: nonce }, aesKey, ciphertext),
  );
  // The last record ends with the delimiter 0x02, then zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (end < 0 || padded[end] !== 2) throw new Error("missing last-record delimiter");
  return new TextDecoder().decode(padded.slice(0, end));
}

/** RFC 8292: check `vapid t=<jwt>, k=<key>` against this origin; returns the claims. */
export async function verifyVapid(
  header: string | null,
  origin: string,
): Promise<ReceivedPush["vapid"]> {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? "");
  if (!m) throw new Error(`Authorization is not a VAPID header: ${header}`);
  const [jwt, k] = [m[1]!, m[2]!];
  const [h, p, s] = jwt.split(".");
  if (!h || !p || !s) throw new Error("malformed JWT");
  const head = JSON.parse(new TextDecoder().decode(fromB64url(h)));
  if (head.alg !== "ES256") throw new Error(`JWT alg ${head.alg}`);
  const claims = JSON.parse(new TextDecoder().decode(fromB64url(p)));
  const key = await crypto.subtle.importKey(
    "raw",
    fromB64url(k),
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["verify"],
  );
  const ok = await crypto.subtle.verify(
    { name: "ECDSA", hash: "SHA-256" },
    key,
    fromB64url(s),
    enc.encode(`${h}.${p}`),
  );
  if (!ok) throw new Error("VAPID signature does not verify");
  if (claims.aud !== origin) throw new Error(`JWT aud ${claims.aud} is not ${origin}`);
  const now = Date.now() / 1000;
  if (!(claims.exp > now && claims.exp <= now + 24 * 3600 + 60)) {
    throw new Error(`JWT exp ${claims.exp} out of range`);
  }
  if (!/^(mailto:|https:)/.test(String(claims.sub))) throw new Error("JWT sub missing");
  return { aud: claims.aud, sub: claims.sub, exp: claims.exp, publicKey: k };
}

async function run(cmd: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(cmd[0]!, { args: cmd.slice(1), cwd, stderr: "piped" })
    .output();
  if (!out.success) throw new Error(`${cmd[0]} failed: ${new TextDecoder().decode(out.stderr)}`);
}

/** A throwaway CA and a certificate for 127.0.0.1/localhost signed by it. */
export async function makeTestCertificate(): Promise<
  { dir: string; caFile: string; cert: string; key: string }
> {
  const dir = await Deno.makeTempDir({ prefix: "parley-push-tls-" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  await run(
    [
      "openssl",
      "req",
      "-x509",
      ...ec,
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-days",
      "2",
      "-subj",
      "/CN=Parley test push CA",
    ],
    dir,
  );
  await run(
    ["openssl", "req", ...ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=127.0.0.1"],
    dir,
  );
  await Deno.writeTextFile(
    `${dir}/leaf.ext`,
    "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n" +
      "keyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n",
  );
  await run(
    [
      "openssl",
      "x509",
      "-req",
      "-in",
      "leaf.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "leaf.pem",
      "-days",
      "2",
      "-extfile",
      "leaf.ext",
    ],
    dir,
  );
  return {
    dir,
    caFile: `${dir}/ca.pem`,
    cert: await Deno.readTextFile(`${dir}/leaf.pem`),
    key: await Deno.readTextFile(`${dir}/leaf.key`),
  };
}

/**
 * The server settings that send its pushes to `push`, signed with `vapid`:
 * the keys, and the service's host and test CA let past the address policy.
 */
export function pushEnv(
  push: PushService,
  vapid: { publicKey: string; privateKey: string },
): Record<string, string> {
  return {
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
    PUSH_ALLOW_HOSTS: push.hostPort,
    PUSH_CA_FILE: push.caFile,
  };
}

export async function startPushService(): Promise<PushService> {
  const tls = await makeTestCertificate();
  const subs = new Map<string, Keys>();
  const scripted = new Map<string, number[]>();
  const stalls = new Map<string, number>();
  const received: ReceivedPush[] = [];
  const rejected: PushService["rejected"] = [];
  const waiters = new Set<() => void>();
  let delayMs = 0;
  let origin = "";

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: tls.cert,
    key: tls.key,
    onListen: () => {},
  }, async (req) => {
    const id = new URL(req.url).pathname.replace(/^\/push\//, "");
    const keys = subs.get(id);
    const body = new Uint8Array(await req.arrayBuffer());
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    const stall = stalls.get(id);
    if (stall) {
      stalls.delete(id);
      await new Promise((r) => setTimeout(r, stall));
      return new Response("too late", { status: 201 });
    }
    if (req.method !== "POST" || !keys) {
      return new Response("no such subscription", { status: 404 });
    }
    const next = scripted.get(id)?.shift();
    if (next !== undefined) return new Response(null, { status: next });
    try {
      if (req.headers.get("content-encoding") !== "aes128gcm") {
        throw new Error(`Content-Encoding ${req.headers.get("content-encoding")}`);
      }
      if (!req.headers.get("ttl")) throw new Error("TTL header missing");
      const vapid = await verifyVapid(req.headers.get("authorization"), origin);
      const text = await decryptPush(body, keys);
      received.push({
        subscriptionId: id,
        payload: JSON.parse(text),
        vapid,
        headers: req.headers,
        at: performance.now(),
      });
      for (const w of waiters) w();
      return new Response(null, { status: 201 });
    } catch (err) {
      rejected.push({ subscriptionId: id, reason: String(err) });
      return new Response(String(err), { status: 400 });
    }
  });
  const port = (server.addr as Deno.NetAddr).port;
  origin = `https://127.0.0.1:${port}`;

  return {
    origin,
    hostPort: `127.0.0.1:${port}`,
    caFile: tls.caFile,
    received,
    rejected,
    async subscribe() {
      const pair = await crypto.subtle.generateKey(
        { name: "ECDH", namedCurve: "P-256" },
        true,
        ["deriveBits"],
      ) as CryptoKeyPair;
      const publicRaw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
      const auth = crypto.getRandomValues(new Uint8Array(16));
      const id = crypto.randomUUID();
      subs.set(id, { privateKey: pair.privateKey, publicRaw, auth });
      return {
        id,
        endpoint: `${origin}/push/${id}`,
        keys: { p256dh: b64url(publicRaw), auth: b64url(auth) },
      };
    },
    respondWith(id, ...statuses) {
      scripted.set(id, [...(scripted.get(id) ?? []), ...statuses]);
    },
    setDelay(ms) {
      delayMs = ms;
    },
    stallNext(id, ms) {
      stalls.set(id, ms);
    },
    waitFor(predicate, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = received.find(predicate);
          if (!hit) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(hit);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `no matching push within ${timeoutMs} ms (rejected: ${JSON.stringify(rejected)})`,
            ),
          );
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    async stop() {
      await server.shutdown();
      await Deno.remove(tls.dir, { recursive: true }).catch(() => {});
    },
  };
}
