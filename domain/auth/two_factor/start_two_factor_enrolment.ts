/**
 * Start enrolment: a fresh secret, stored encrypted under APP_KEY and not yet
 * live, shown once as an otpauth:// URI, its QR code (SVG, drawn by the
 * maintained `qrcode` library) and the typed form. Starting again replaces an
 * unconfirmed secret; a user with two-factor on must disable it first.
 */
// @ts-types="./qrcode.d.ts"
import QRCode from "qrcode";
import type { Executor } from "../../../db/client.ts";
import { findTwoFactorState, storePendingSecret } from "../../../db/two_factor.ts";
import { Invalid } from "../../errors.ts";
import { encryptText } from "../secrets.ts";
import { newTotpSecret, otpauthUri } from "./totp.ts";

export interface TwoFactorEnrolment {
  /** base32, for typing into an app that cannot scan. */
  secret: string;
  otpauth_uri: string;
  /** An SVG document of the QR code of `otpauth_uri`. */
  qr_svg: string;
}

export async function startTwoFactorEnrolment(
  sql: Executor,
  appKey: CryptoKey,
  user: { id: number; email: string },
): Promise<TwoFactorEnrolment> {
  const state = await findTwoFactorState(sql, user.id);
  if (state.enabledAt) {
    throw Invalid.field("two_factor", "Two-factor sign-in is already on: disable it first.");
  }
  const secret = newTotpSecret();
  await storePendingSecret(sql, user.id, await encryptText(appKey, secret));
  const uri = otpauthUri(secret, user.email);
  const svg = await QRCode.toString(uri, { type: "svg", margin: 2, errorCorrectionLevel: "M" });
  return { secret, otpauth_uri: uri, qr_svg: svg };
}
