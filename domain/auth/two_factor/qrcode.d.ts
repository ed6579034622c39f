// The part of the `qrcode` package we call (its own package ships no types;
// @types/qrcode would pull in a newer @types/node than the project's).
declare const QRCode: {
  toString(
    text: string,
    options: { type: "svg"; margin?: number; errorCorrectionLevel?: "L" | "M" | "Q" | "H" },
  ): Promise<string>;
};
export default QRCode;
