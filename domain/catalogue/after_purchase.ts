/**
 * Whether a question is about something already bought (issue 42): a support
 * question that names a product, a price or an amount ("I was charged twice
 * for the £12 notebook", "can I return the printer I bought", "how do I fill
 * my fountain pen") reads like a shopper's to retrieval, since its words are
 * the catalogue's. What gives it away is not its topic but its tense and its
 * owner: a purchase, a charge or a delivery in the past, the visitor's order,
 * parcel or refund, a fault in something they have, an after-sales policy
 * (returns, warranty, shipping costs, discount codes), or how to look after or
 * work something that is theirs. A fault or a purchase said with a wish to buy
 * ("my kettle broke, can you recommend a new one?", "I bought your pen, do
 * you sell refills?") is still a shopper's.
 */

/** Services a shop charges for, named as a noun ("a setup", "screen replacement"). */
const SERVICES = "set[- ]?ups?|repairs?|servic(?:e|es|ing)|installation|install|fitting|assembly|" +
  "engraving|gift[- ]?wrap(?:ping)?|restring(?:ing)?|alterations?|(?:screen|battery|glass)\\s+" +
  "replacement|sharpening|call[- ]?outs?|consultations?|labou?r";
/** What follows a service word when a product is meant ("a repair kit", "fitting instructions"). */
const NOT_A_SERVICE = "kits?|sets?|tools?|tape|patch(?:es)?|stands?|mats?|books?|manuals?|" +
  "instructions|spray|cloths?|brush(?:es)?|cables?|adapters?";

/** Signs that hold whatever else is asked. */
const ALWAYS: RegExp[] = [
  // Charged, billed or refunded: "I was charged twice", "you charged me", "double charged".
  /\b(?:was|were|been|got|get|being|am|you|they)\s+(?:\w+\s+)?(?:charged|billed|overcharged|debited|refunded)\b/,
  /\b(?:charged|billed)\s+(?:me\s+)?(?:twice|double|two times)\b|\bdouble[- ]?charged?\b/,
  // A fee for a service: "how much do you charge to put it up", "how much does a setup cost for
  // an electric guitar", "how much is it to fix a cracked screen". A kit or tool for the job
  // ("a repair kit", "a service kit") is a product.
  /\b(?:do|will|would|does)\s+(?:you|it)\s+charge\b/,
  new RegExp(
    "\\bhow\\s+much\\s+(?:does|do|is|would|will|are|for)\\s+(?:(?:a|an|the|your|my)\\s+)?" +
      "(?:[\\w-]+\\s+)?(?:" + SERVICES + ")\\b(?!\\s+(?:" + NOT_A_SERVICE + ")\\b)",
  ),
  new RegExp(
    "\\bhow\\s+much\\s+(?:does|would|will|is)\\s+it\\s+(?:cost\\s+|be\\s+)?to\\s+(?:" +
      "repair|fix|set\\s+up|install|fit|assemble|engrave|gift[- ]?wrap|wrap|restring|service|" +
      "replace|sharpen|mend|alter|unlock" +
      ")\\b",
  ),
  // The visitor's order and what goes with it.
  /\b(?:my|our)\s+(?:\w+\s+)?(?:orders?|parcels?|package|delivery|refund|payment|purchase|invoice|receipt|account|subscription|money|tracking|code|voucher|coupon|password|login|basket|cart)\b/,
  // A card of money, not a memory card: "my £25 gift card", "my card was declined" ("a card
  // reader for my sd card" is a shopper's).
  /\b(?:my|our)\s+(?:\S+\s+){0,2}(?:gift|credit|debit|bank|loyalty|rewards?|store)\s+cards?\b|\b(?:my|our)\s+card\b/,
  // A delivery that did not come, or came in a state.
  /\b(?:hasn't|has not|haven't|have not|hadn't|never|didn't|did not|not yet|yet to)\s+(?:\w+\s+)?(?:arrived?|come|came|turned up|shown up|been delivered|delivered|received|come through|gone through)\b/,
  /(?<!\b(?:have|has|had)\b[^.?!]*)\barrived\b/,
  /\b(?:says|said|shows|showed|marked(?: as)?)\s+(?:it was\s+|as\s+)?delivered\b/,
  // After-sales policies.
  /\b(?:refunds?|refunded|refunding|returns?|returned|returning|exchange|exchanged|exchanging|cancel(?:led|ed|ling|ing)?)\b/,
  /\bmoney\s+back\b|\bsend\s+(?:(?:it|them|this|that|these|those|\w+)\s+)?back\b/,
  /\bcovered\s+(?:by|under)\b|\bunder\s+(?:the\s+)?(?:warranty|guarantee)\b/,
  /\b(?:warranty|guarantee)\s+(?:cover|covers|claim)\b/,
  /\b(?:discount|promo|promotional|voucher|coupon|gift)\s+codes?\b/,
  /\bprice[- ]match/,
  // How the shop is paid, ships and opens.
  /\bpayment\s+methods?\b|\binstal?lments?\b|\bpay\s+(?:by|with|using|in)\b/,
  /\bdo\s+you\s+(?:ship|deliver|post)\s+(?:to|abroad|overseas|internationally)\b/,
  /\bhow\s+long\s+(?:does|will|do)\s+(?:the\s+)?(?:shipping|delivery|postage|dispatch)\b/,
  /\bopening\s+(?:hours|times)\b|\bwhat\s+time\s+(?:do|does)\b[^.?!]*\b(?:open|close)\b/,
  /\b(?:shipping|delivery|postage)\s+(?:to|cost|costs|charge|charges|fee|fees|time|times|address|free)\b/,
  /\b(?:free|express|next[- ]day|standard|international)\s+(?:shipping|delivery|postage)\b/,
  /\bhow\s+much\s+(?:is|does|for)\s+(?:the\s+)?(?:shipping|delivery|postage)\b/,
  // How to look after or work something the visitor has.
  new RegExp(
    "\\bhow\\s+(?:do|can|should|would|to)\\s+(?:i\\s+|we\\s+|you\\s+)?(?:" +
      "clean|wash|dry|season|descale|reproof|waterproof|oil|fill|refill|change|fix|repair|reset|" +
      "set\\s+up|install|assemble|put\\s+together|charge|recharge|adjust|register|connect|pair|" +
      "update|unblock|unjam|load|insert|remove|maintain|care\\s+for|look\\s+after|empty|open|" +
      "unlock|track|use|apply|redeem|unsubscribe|delete|close" +
      ")\\b(?:\\s+\\w+){0,3}?\\s+(?:my|our|the|this|that|these|those|it|them)\\b",
  ),
];

/** Signs that a wish to buy outweighs ("…, do you have a bigger one?"). */
const UNLESS_BUYING: RegExp[] = [
  // Bought, ordered, used or received: "the printer I bought", "boots I've worn", and with the
  // subject left out as a chat drops it ("ordered the sage cover but got a white one").
  /\b(?:i|we|i've|we've|i have|we have|i had|you|they|\w+)\s+(?:just\s+|already\s+|recently\s+|only\s+)?(?:bought|ordered|purchased|paid|received)\b/,
  /^(?:just\s+|already\s+|recently\s+)?(?:bought|ordered|purchased|received)\b/,
  // Sent something else: "… but got a white one", "but you sent the wrong".
  /\bbut\s+(?:i\s+|we\s+)?(?:got|received|was\s+sent|were\s+sent|you\s+sent|it\s+came)\b/,
  /\b(?:i've|i have|we've|we have)\s+(?:already\s+|only\s+|just\s+)?(?:used|worn|opened|washed|tried)\b/,
  /\b(?:the|that|this|these|those)\s+(?:[\w-]+\s+){1,6}(?:i|we)\s+got\b/,
  /\b(?:got|bought|ordered)\s+(?:it\s+|them\s+|one\s+)?(?:off|from)\s+you\b/,
  // Had for a while: "had them 3 months", "had it for two weeks".
  /\bhad\s+(?:it|them|this|these|mine|ours?)\s+(?:for\s+)?(?:about\s+|only\s+|just\s+)?(?:a|an|one|two|three|four|five|six|\d+)\s+(?:days?|weeks?|months?|years?)\b/,
  // A fault in something the visitor has.
  /\bstopped\s+(?:\w+ing|holding\s+(?:a\s+)?charge)\b/,
  /\b(?:app|it|they|them|phone|laptop|tablet|computer|wifi|bluetooth)\s+(?:can't|cannot|won't|doesn't|didn't)\s+(?:find|see|detect|recogni[sz]e|pair|connect)\b/,
  /\b(?:broke|broken|cracked|damaged|faulty|defective|leaking|stopped\s+working|came\s+apart|fell\s+apart|falling\s+apart|dried\s+out|dead\s+on\s+arrival|jammed|jamming|missing\s+(?:parts?|pieces?))\b/,
  /\b(?:doesn't|does not|isn't|is not|won't|will not|wouldn't|didn't|did not)\s+(?:work|charge|turn\s+on|switch\s+on|start|connect|working|charging)\b/,
  /\bjams\s+(?:every|each|when|whenever|all|constantly|up)\b/,
  /\bwrong\s+(?:size|colou?r|item|one|product|model)\b/,
];

/** Asking for something to buy: "do you sell", "recommend", "a new one", refills. */
const BUYING =
  /\b(?:do|does)\s+you\s+(?:sell|have|stock|carry|make|do)\b|\b(?:recommend|suggest|buy|looking\s+for|shopping\s+for|a\s+new|new\s+one|another\s+one|spares?|refills?|upgrade|any\s+ideas)\b/;

/** Contractions typed without their apostrophe, as chats often do ("wont charge", "didnt arrive"). */
const CONTRACTED: Record<string, string> = Object.fromEntries(
  [
    "won't",
    "don't",
    "doesn't",
    "didn't",
    "isn't",
    "wasn't",
    "weren't",
    "can't",
    "couldn't",
    "wouldn't",
    "hasn't",
    "haven't",
    "hadn't",
    "i've",
    "we've",
  ].map((w) => [w.replace("'", ""), w]),
);
const CONTRACTED_BARE = new RegExp(`\\b(?:${Object.keys(CONTRACTED).join("|")})\\b`, "g");

/** Whether `question` reads as support for something already bought (see the module's comment). */
export function afterPurchase(question: string): boolean {
  const text = question.toLowerCase().replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(CONTRACTED_BARE, (w) => CONTRACTED[w]!);
  if (ALWAYS.some((re) => re.test(text))) return true;
  return UNLESS_BUYING.some((re) => re.test(text)) && !BUYING.test(text);
}
