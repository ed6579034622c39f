/**
 * The languages a bot's knowledge can be indexed in: PostgreSQL's full-text
 * configurations present in both the embedded database and the server
 * (stemming and stop words); `simple` indexes words as they are.
 */
export const BOT_LANGUAGES = [
  "english",
  "french",
  "german",
  "spanish",
  "italian",
  "portuguese",
  "dutch",
  "swedish",
  "danish",
  "norwegian",
  "finnish",
  "russian",
  "simple",
] as const;
export type BotLanguage = typeof BOT_LANGUAGES[number];
