// The words of the page in English and Arabic, and the names of the engine's enums in both.
// Arabic terms follow the glossary of docs/rules.md (صن، حكم، أشكل، دبل، قهوة…).

import {
  BidKind,
  ContractType,
  DoublingCall,
  EventKind,
  OutcomeReason,
  Phase,
  PlayMode,
  ProjectKind,
  QaydCategory,
  RedealReason,
  SUIT_SYMBOLS,
  Suit,
} from "@baloot-engine/client";

export type Lang = "en" | "ar";

const EN = {
  title: "Baloot playground",
  subtitle: "A table of four against the engine's bots, over gRPC-Web",
  newMatch: "New match",
  mode: "Mode",
  modePlay: "Play a seat",
  modeWatch: "Watch four bots",
  seat: "Your seat",
  level: "Bots",
  levelRandom: "Random",
  levelBasic: "Basic",
  levelStrong: "Strong",
  preset: "Rules",
  presetSeeds: "Seeds (reference)",
  presetKammelna: "Kammelna",
  presetFederation: "Saudi federation",
  targetDefault: "the rules'",
  start: "Start at",
  target: "Target",
  delay: "Bot delay (ms)",
  language: "العربية",
  you: "You",
  bot: "Bot",
  team: "Team",
  us: "Us",
  them: "Them",
  seatNames: ["South", "East", "North", "West"],
  dealer: "dealer",
  turn: "to act",
  phase: "Phase",
  round: "Round",
  contract: "Contract",
  noContract: "not fixed yet",
  boughtBy: "bought by",
  multiplier: "multiplier",
  revealedCard: "Revealed card",
  bids: "Bids",
  doublingChain: "Doubling",
  projects: "Projects",
  declared: "declared",
  revealed: "shown",
  abnat: "Abnat",
  tricks: "tricks",
  trick: "Trick",
  lastTrick: "Last trick",
  yourHand: "Your hand",
  legalHint: "Highlighted cards are legal; any other card is sent too, and the engine says why it refuses it.",
  yourTurn: "Your turn",
  waiting: "Waiting for",
  deal: "Deal",
  nextRound: "Next round",
  roundOver: "Round over",
  matchOver: "Match over",
  winner: "wins the match",
  refused: "Refused",
  allowed: "Allowed",
  sheet: "Score sheet (النشرة)",
  start0: "start",
  redeal: "redeal",
  total: "Total",
  roundSummary: "Last round",
  dealtHands: "Dealt hands",
  dealtNote: "Every card each seat played in the round, which is its dealt hand.",
  breakdown: "Score breakdown",
  cardAbnat: "card abnat",
  cardPoints: "card points",
  projectPoints: "projects",
  balootPoints: "Baloot",
  finalPoints: "points",
  made: "made",
  failed: "failed",
  kaboot: "Kaboot",
  api: "API calls",
  apiHint: "The last calls as proto3 JSON; the state token is shown as its size, credentials by role.",
  request: "request",
  response: "response",
  error: "error",
  log: "Table log",
  akka: "Akka",
  sawa: "Sawa (claim the rest)",
  declare: "Declare",
  qayd: "Qayd",
  tablePlay: "Table play",
  tablePlayHint: "Any card held is accepted, as at a real table; a broken rule is caught only by a Qayd call.",
  tablePlayNote:
    "Table play: any card you hold is accepted, even one that breaks a rule (the highlighted cards are the legal ones). The other team may call Qayd on it.",
  reviewNote: "The round is under review: call Qayd on a card of the other team, or close the review to score it.",
  closeReview: "Close review",
  qaydPick: "Pick a card of the other team from the tricks played so far, and the rule it broke (optional).",
  qaydRule: "Rule",
  qaydAnyRule: "any rule",
  qaydSend: "Call Qayd",
  qaydRight: "right call",
  qaydWrong: "wrong call",
  qaydEvidence: "Evidence",
  qaydWinner: "The hand goes to",
  qaydEngine: "the engine",
  roundScore: "Round score",
  dealtRevealNote: "The eight cards each seat was dealt, from the round reveal of the engine.",
  open: "open",
  closed: "closed",
  gahwa: "Gahwa",
  hostNote:
    "This local page holds the host credential to drive the bots; in a real app the backend keeps it and the page only its seat's.",
  connecting: "Connecting to",
  unreachable: "Cannot reach the gateway at",
} as const;

type Words = { readonly [K in keyof typeof EN]: (typeof EN)[K] extends readonly string[] ? readonly string[] : string };

const AR: Words = {
  title: "ملعب البلوت",
  subtitle: "طاولة أربعة مع روبوتات المحرك عبر gRPC-Web",
  newMatch: "صكة جديدة",
  mode: "الوضع",
  modePlay: "العب في مقعد",
  modeWatch: "شاهد أربعة روبوتات",
  seat: "مقعدك",
  level: "الروبوتات",
  levelRandom: "عشوائي",
  levelBasic: "أساسي",
  levelStrong: "قوي",
  preset: "القوانين",
  presetSeeds: "المرجع",
  presetKammelna: "كملنا",
  presetFederation: "الاتحاد السعودي",
  targetDefault: "حسب القوانين",
  start: "البداية",
  target: "الهدف",
  delay: "تأخير الروبوت (ms)",
  language: "English",
  you: "أنت",
  bot: "روبوت",
  team: "الفريق",
  us: "لنا",
  them: "لهم",
  seatNames: ["الجنوب", "الشرق", "الشمال", "الغرب"],
  dealer: "الموزع",
  turn: "دوره",
  phase: "المرحلة",
  round: "الجولة",
  contract: "المشترى",
  noContract: "لم يحدد بعد",
  boughtBy: "اشتراه",
  multiplier: "المضاعفة",
  revealedCard: "ورقة الأرض",
  bids: "الشراء",
  doublingChain: "المضاعفة",
  projects: "المشاريع",
  declared: "معلن",
  revealed: "مكشوف",
  abnat: "الأبناط",
  tricks: "أكلات",
  trick: "الأكلة",
  lastTrick: "الأكلة السابقة",
  yourHand: "أوراقك",
  legalHint: "الأوراق المضيئة مسموحة؛ وأي ورقة أخرى تُرسل أيضاً ويشرح المحرك سبب رفضها.",
  yourTurn: "دورك",
  waiting: "بانتظار",
  deal: "وزّع",
  nextRound: "الجولة التالية",
  roundOver: "انتهت الجولة",
  matchOver: "انتهت الصكة",
  winner: "يفوز بالصكة",
  refused: "مرفوض",
  allowed: "المسموح",
  sheet: "النشرة",
  start0: "البداية",
  redeal: "إعادة توزيع",
  total: "المجموع",
  roundSummary: "الجولة الأخيرة",
  dealtHands: "الأوراق الموزعة",
  dealtNote: "كل ورقة لعبها كل مقعد في الجولة، وهي أوراقه الموزعة.",
  breakdown: "تفصيل الحساب",
  cardAbnat: "أبناط الأوراق",
  cardPoints: "نقاط الأوراق",
  projectPoints: "المشاريع",
  balootPoints: "بلوت",
  finalPoints: "النقاط",
  made: "نجح",
  failed: "خسارة",
  kaboot: "كبوت",
  api: "طلبات الواجهة",
  apiHint: "آخر الطلبات بصيغة JSON؛ رمز الحالة يظهر بحجمه فقط، وبيانات الاعتماد بدورها.",
  request: "الطلب",
  response: "الرد",
  error: "خطأ",
  log: "سجل الطاولة",
  akka: "إكة",
  sawa: "سوا",
  declare: "أعلن",
  qayd: "قيد",
  tablePlay: "لعب الطاولة",
  tablePlayHint: "تُقبل أي ورقة في اليد كما على طاولة حقيقية؛ ولا يُكشف خرق القاعدة إلا بالقيد.",
  tablePlayNote:
    "لعب الطاولة: تُقبل أي ورقة في يدك حتى لو خالفت القاعدة (الأوراق المضيئة هي المسموحة). ويحق للفريق الآخر أن يقيّدها.",
  reviewNote: "الجولة قيد المراجعة: قيّد ورقة للفريق الآخر، أو أغلق المراجعة لحساب الجولة.",
  closeReview: "أغلق المراجعة",
  qaydPick: "اختر ورقة للفريق الآخر من الأكلات الملعوبة، والقاعدة التي خالفتها (اختياري).",
  qaydRule: "القاعدة",
  qaydAnyRule: "أي قاعدة",
  qaydSend: "قيّد",
  qaydRight: "قيد صحيح",
  qaydWrong: "قيد خاطئ",
  qaydEvidence: "الدليل",
  qaydWinner: "اليد لـ",
  qaydEngine: "المحرك",
  roundScore: "نتيجة الجولة",
  dealtRevealNote: "الأوراق الثماني التي وُزعت لكل مقعد، من كشف المحرك بعد الجولة.",
  open: "مفتوح",
  closed: "مقفل",
  gahwa: "قهوة",
  hostNote:
    "هذه الصفحة المحلية تحمل بيانات اعتماد المضيف لتحريك الروبوتات؛ في تطبيق حقيقي يحتفظ بها الخادم ولا تحمل الصفحة إلا بيانات مقعدها.",
  connecting: "الاتصال بـ",
  unreachable: "تعذر الوصول إلى البوابة في",
};

const WORDS: Record<Lang, Words> = { en: EN, ar: AR };

/** The words of a language. */
export function words(lang: Lang): Words {
  return WORDS[lang];
}

const SUITS: Record<Lang, readonly string[]> = {
  en: ["Spades", "Hearts", "Diamonds", "Clubs"],
  ar: ["سبيت", "هاص", "ديمن", "شريا"],
};

/** A suit's symbol and name, e.g. "♥ Hearts". */
export function suitName(lang: Lang, suit: Suit): string {
  const index = suit - Suit.SPADES;
  return `${SUIT_SYMBOLS[index] ?? "?"} ${SUITS[lang][index] ?? "?"}`;
}

const BIDS: Record<Lang, Partial<Record<BidKind, string>>> = {
  en: {
    [BidKind.PASS]: "Pass",
    [BidKind.HOKM]: "Hokm",
    [BidKind.SUN]: "Sun",
    [BidKind.ASHKAL]: "Ashkal",
    [BidKind.CONFIRM_HOKM]: "Confirm Hokm",
    [BidKind.SWITCH_TO_SUN]: "Switch to Sun",
    [BidKind.CLAIM_SUN]: "Before you (Sun)",
    [BidKind.KAWESH]: "Kawesh",
  },
  ar: {
    [BidKind.PASS]: "بس",
    [BidKind.HOKM]: "حكم",
    [BidKind.SUN]: "صن",
    [BidKind.ASHKAL]: "أشكل",
    [BidKind.CONFIRM_HOKM]: "ثبّت الحكم",
    [BidKind.SWITCH_TO_SUN]: "حوّل صن",
    [BidKind.CLAIM_SUN]: "قبلك",
    [BidKind.KAWESH]: "كوش",
  },
};

/** A bid's name, with the suit it names. */
export function bidName(lang: Lang, kind: BidKind, suit: Suit = Suit.UNSPECIFIED): string {
  const name = BIDS[lang][kind] ?? BidKind[kind];
  return suit === Suit.UNSPECIFIED ? name : `${name} ${suitName(lang, suit)}`;
}

const CALLS: Record<Lang, Partial<Record<DoublingCall, string>>> = {
  en: {
    [DoublingCall.DOUBLE]: "Double",
    [DoublingCall.TRIPLE]: "Triple",
    [DoublingCall.FOUR]: "Four",
    [DoublingCall.GAHWA]: "Gahwa",
    [DoublingCall.DECLINE]: "No double",
    [DoublingCall.CHOOSE_MODE]: "Choose",
  },
  ar: {
    [DoublingCall.DOUBLE]: "دبل",
    [DoublingCall.TRIPLE]: "تربل",
    [DoublingCall.FOUR]: "فور",
    [DoublingCall.GAHWA]: "قهوة",
    [DoublingCall.DECLINE]: "بدون",
    [DoublingCall.CHOOSE_MODE]: "اختر",
  },
};

/** A doubling call's name, with the play mode it names. */
export function callName(lang: Lang, call: DoublingCall, mode: PlayMode = PlayMode.UNSPECIFIED): string {
  const name = CALLS[lang][call] ?? DoublingCall[call];
  return mode === PlayMode.UNSPECIFIED ? name : `${name} (${modeName(lang, mode)})`;
}

/** Open or closed play. */
export function modeName(lang: Lang, mode: PlayMode): string {
  return mode === PlayMode.CLOSED ? WORDS[lang].closed : WORDS[lang].open;
}

const CONTRACTS: Record<Lang, Partial<Record<ContractType, string>>> = {
  en: { [ContractType.SUN]: "Sun", [ContractType.HOKM]: "Hokm" },
  ar: { [ContractType.SUN]: "صن", [ContractType.HOKM]: "حكم" },
};

/** Sun or Hokm. */
export function contractName(lang: Lang, type: ContractType): string {
  return CONTRACTS[lang][type] ?? "—";
}

const PROJECTS: Record<Lang, Partial<Record<ProjectKind, string>>> = {
  en: {
    [ProjectKind.SIRA]: "Sira",
    [ProjectKind.FIFTY]: "Fifty",
    [ProjectKind.HUNDRED]: "Hundred",
    [ProjectKind.FOUR_HUNDRED]: "Four Hundred",
    [ProjectKind.BALOOT]: "Baloot",
  },
  ar: {
    [ProjectKind.SIRA]: "سرا",
    [ProjectKind.FIFTY]: "خمسين",
    [ProjectKind.HUNDRED]: "مية",
    [ProjectKind.FOUR_HUNDRED]: "أربعمية",
    [ProjectKind.BALOOT]: "بلوت",
  },
};

/** A project kind's name. */
export function projectName(lang: Lang, kind: ProjectKind): string {
  return PROJECTS[lang][kind] ?? ProjectKind[kind];
}

const PHASES: Record<Lang, Partial<Record<Phase, string>>> = {
  en: {
    [Phase.AWAITING_DEAL]: "awaiting the deal",
    [Phase.BIDDING]: "bidding",
    [Phase.DOUBLING]: "doubling",
    [Phase.PLAYING]: "playing",
    [Phase.ROUND_OVER]: "round over",
    [Phase.MATCH_OVER]: "match over",
    [Phase.ROUND_REVIEW]: "round under review",
  },
  ar: {
    [Phase.AWAITING_DEAL]: "بانتظار التوزيع",
    [Phase.BIDDING]: "الشراء",
    [Phase.DOUBLING]: "المضاعفة",
    [Phase.PLAYING]: "اللعب",
    [Phase.ROUND_OVER]: "انتهت الجولة",
    [Phase.MATCH_OVER]: "انتهت الصكة",
    [Phase.ROUND_REVIEW]: "الجولة قيد المراجعة",
  },
};

/** A phase's name. */
export function phaseName(lang: Lang, phase: Phase): string {
  return PHASES[lang][phase] ?? Phase[phase];
}

const OUTCOMES: Record<Lang, Partial<Record<OutcomeReason, string>>> = {
  en: {
    [OutcomeReason.MORE_POINTS]: "the buyers scored more",
    [OutcomeReason.FEWER_POINTS]: "the buyers scored fewer",
    [OutcomeReason.RAW_POINTS]: "decided on raw abnat",
    [OutcomeReason.EXACT_TIE]: "an exact tie",
    [OutcomeReason.DOUBLED_TIE]: "a doubled tie",
    [OutcomeReason.KABOOT]: "kaboot",
    [OutcomeReason.REVERSE_KABOOT]: "reverse kaboot",
    [OutcomeReason.RAW_HALF]: "decided on half the raw abnat",
    [OutcomeReason.QAYD]: "decided by a Qayd call",
  },
  ar: {
    [OutcomeReason.MORE_POINTS]: "المشتري أكثر نقاطاً",
    [OutcomeReason.FEWER_POINTS]: "المشتري أقل نقاطاً",
    [OutcomeReason.RAW_POINTS]: "حسمت بالأبناط",
    [OutcomeReason.EXACT_TIE]: "تعادل تام",
    [OutcomeReason.DOUBLED_TIE]: "تعادل مع دبل",
    [OutcomeReason.KABOOT]: "كبوت",
    [OutcomeReason.REVERSE_KABOOT]: "كبوت مقلوب",
    [OutcomeReason.RAW_HALF]: "حسمت بنصف الأبناط",
    [OutcomeReason.QAYD]: "حسمت بالقيد",
  },
};

/** Why a round was made or failed. */
export function outcomeName(lang: Lang, reason: OutcomeReason): string {
  return OUTCOMES[lang][reason] ?? OutcomeReason[reason];
}

const REDEALS: Record<Lang, Partial<Record<RedealReason, string>>> = {
  en: { [RedealReason.ALL_PASSED]: "everyone passed", [RedealReason.KAWESH]: "Kawesh" },
  ar: { [RedealReason.ALL_PASSED]: "الكل قال بس", [RedealReason.KAWESH]: "كوش" },
};

/** Why a hand was dealt again. */
export function redealName(lang: Lang, reason: RedealReason): string {
  return REDEALS[lang][reason] ?? RedealReason[reason];
}

/** The generated name of an event kind, for the table log ("CARD_PLAYED"). */
/** The rules a Qayd call may name (a false Sawa is called on a claim, not a card). */
export const QAYD_CATEGORIES: readonly QaydCategory[] = [
  QaydCategory.REVOKE,
  QaydCategory.NO_TRUMP,
  QaydCategory.NO_OVERTRUMP,
  QaydCategory.CLOSED_TRUMP_LEAD,
  QaydCategory.FALSE_AKKA,
];

const QAYD_NAMES: Record<Lang, Partial<Record<QaydCategory, string>>> = {
  en: {
    [QaydCategory.REVOKE]: "revoke (did not follow suit)",
    [QaydCategory.NO_TRUMP]: "did not trump",
    [QaydCategory.NO_OVERTRUMP]: "did not over-trump",
    [QaydCategory.CLOSED_TRUMP_LEAD]: "trump led in a closed game",
    [QaydCategory.FALSE_AKKA]: "false Akka",
    [QaydCategory.FALSE_SAWA]: "false Sawa",
  },
  ar: {
    [QaydCategory.REVOKE]: "قاطع",
    [QaydCategory.NO_TRUMP]: "ما دق بحكم",
    [QaydCategory.NO_OVERTRUMP]: "ما كبر بحكم",
    [QaydCategory.CLOSED_TRUMP_LEAD]: "ربع في الدبل",
    [QaydCategory.FALSE_AKKA]: "إكة خاطئة",
    [QaydCategory.FALSE_SAWA]: "سوا خطأ",
  },
};

/** The name of a rule a Qayd call names. */
export function qaydCategoryName(lang: Lang, category: QaydCategory): string {
  return QAYD_NAMES[lang][category] ?? QaydCategory[category];
}

const EVENTS: Record<Lang, Partial<Record<EventKind, string>>> = {
  en: {
    [EventKind.BID_PLACED]: "Bid",
    [EventKind.CONTRACT_FIXED]: "Contract",
    [EventKind.CARDS_DEALT]: "Cards dealt",
    [EventKind.REDEAL]: "Redeal",
    [EventKind.DOUBLING_CALLED]: "Doubling",
    [EventKind.DOUBLING_ENDED]: "Doubling over",
    [EventKind.PROJECTS_DECLARED]: "Projects declared",
    [EventKind.PROJECTS_REVEALED]: "Projects shown",
    [EventKind.CARD_PLAYED]: "Card",
    [EventKind.AKKA_CALLED]: "Akka",
    [EventKind.BALOOT_ANNOUNCED]: "Baloot",
    [EventKind.TRICK_WON]: "Trick won",
    [EventKind.SAWA_CLAIMED]: "Sawa",
    [EventKind.ROUND_SCORED]: "Round scored",
    [EventKind.MATCH_WON]: "Match won",
    [EventKind.QAYD_JUDGED]: "Qayd judged",
    [EventKind.REVIEW_OPENED]: "Review opened",
    [EventKind.ROUND_REVEALED]: "Hands shown",
  },
  ar: {
    [EventKind.BID_PLACED]: "شراء",
    [EventKind.CONTRACT_FIXED]: "المشترى",
    [EventKind.CARDS_DEALT]: "توزيع",
    [EventKind.REDEAL]: "إعادة توزيع",
    [EventKind.DOUBLING_CALLED]: "مضاعفة",
    [EventKind.DOUBLING_ENDED]: "انتهت المضاعفة",
    [EventKind.PROJECTS_DECLARED]: "إعلان مشاريع",
    [EventKind.PROJECTS_REVEALED]: "كشف المشاريع",
    [EventKind.CARD_PLAYED]: "ورقة",
    [EventKind.AKKA_CALLED]: "إكة",
    [EventKind.BALOOT_ANNOUNCED]: "بلوت",
    [EventKind.TRICK_WON]: "أكلة",
    [EventKind.SAWA_CLAIMED]: "سوا",
    [EventKind.ROUND_SCORED]: "حساب الجولة",
    [EventKind.MATCH_WON]: "انتهت الصكة",
    [EventKind.QAYD_JUDGED]: "حكم القيد",
    [EventKind.REVIEW_OPENED]: "الجولة قيد المراجعة",
    [EventKind.ROUND_REVEALED]: "كشف الأوراق",
  },
};

/** An event's name in the page's language (the enum's name when it has none: a newer server). */
export function eventKindName(lang: Lang, kind: EventKind): string {
  return EVENTS[lang][kind] ?? EventKind[kind] ?? String(kind);
}
