/** Password hashing with bcrypt: slow on purpose, salted per password. */
import bcrypt from "bcryptjs";

const COST = 10;
// A real hash of a random string: comparing against it when the e-mail is
// unknown makes a failed login take the same time whether or not the user exists.
const DUMMY_HASH = "$2b$10$bl2LwNDjEubmb.rjXYwJKObraNF./JrzvO2OYgvF0cvgSGXiySVr.";

/**
 * A bcrypt hash made elsewhere (a seed's `password_hash`, e.g. users moved
 * from a Devise or Laravel app) is taken only at our cost or slower.
 */
export function isAcceptedPasswordHash(hash: string): boolean {
  const m = /^\$2[aby]\$(\d{2})\$[./A-Za-z0-9]{53}$/.exec(hash);
  return m !== null && Number(m[1]) >= COST && Number(m[1]) <= 31;
}

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, COST);
}

export function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  return bcrypt.compare(password, hash ?? DUMMY_HASH).then((ok) => ok && hash !== null);
}
