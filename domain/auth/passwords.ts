/** Password hashing with bcrypt: slow on purpose, salted per password. */
import bcrypt from "bcryptjs";

const COST = 10;
// A real hash of a random string: comparing against it when the e-mail is
// unknown makes a failed login take the same time whether or not the user exists.
const DUMMY_HASH = "$2b$10$bl2LwNDjEubmb.rjXYwJKObraNF./JrzvO2OYgvF0cvgSGXiySVr.";

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, COST);
}

export function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  return bcrypt.compare(password, hash ?? DUMMY_HASH).then((ok) => ok && hash !== null);
}
