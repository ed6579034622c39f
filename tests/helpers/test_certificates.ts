/**
 * Certificates for TLS tests, made with openssl for the run: a CA, a
 * certificate it signed for `host`, and a self-signed one for the same host
 * that nobody trusts (the server process trusts the CA through DENO_CERT).
 */
export const hasOpenssl = await new Deno.Command("openssl", { args: ["version"], stdout: "null" })
  .output().then((o) => o.success, () => false);

async function openssl(dir: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("openssl", { args, cwd: dir, stdout: "null", stderr: "piped" })
    .output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
}

/** A CA, a certificate it signed for localhost, and a self-signed one nobody trusts. */
export async function makeCertificates(dir: string, host = "localhost") {
  await openssl(
    dir,
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "2",
    "-subj",
    "/CN=Parley test CA",
  );
  await openssl(
    dir,
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "good.key",
    "-out",
    "good.csr",
    "-subj",
    `/CN=${host}`,
  );
  await Deno.writeTextFile(`${dir}/ext.cnf`, `subjectAltName=DNS:${host}\n`);
  await openssl(
    dir,
    "x509",
    "-req",
    "-in",
    "good.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "good.pem",
    "-days",
    "2",
    "-extfile",
    "ext.cnf",
  );
  await openssl(
    dir,
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "bad.key",
    "-out",
    "bad.pem",
    "-days",
    "2",
    "-subj",
    `/CN=${host}`,
    "-addext",
    `subjectAltName=DNS:${host}`,
  );
  const read = (name: string) => Deno.readTextFile(`${dir}/${name}`);
  return {
    ca: `${dir}/ca.pem`,
    good: { cert: await read("good.pem"), key: await read("good.key") },
    bad: { cert: await read("bad.pem"), key: await read("bad.key") },
  };
}
