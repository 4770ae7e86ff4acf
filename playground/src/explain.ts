// The round's score explained in the page's language. The engine's RoundScore.explanation is an
// English paragraph for logs and score sheets; the Arabic page says the same facts in Arabic,
// from the score's own fields (the contract, the outcome and its reason, each team's points).

import { ContractType, OutcomeReason, type RoundScore } from "@baloot-engine/client";

import type { Lang } from "./i18n.js";

const REASONS: Partial<Record<OutcomeReason, string>> = {
  [OutcomeReason.MORE_POINTS]: "نقاطه أكثر من نقاط الفريق الثاني.",
  [OutcomeReason.FEWER_POINTS]: "نقاطه أقل من نقاط الفريق الثاني.",
  [OutcomeReason.RAW_POINTS]: "تعادلت النقاط، وحسمتها الأبناط.",
  [OutcomeReason.EXACT_TIE]: "تعادل تام، حسمته قاعدة التعادل في القوانين.",
  [OutcomeReason.DOUBLED_TIE]: "تعادل في جولة مدبّلة: يخسر اللي دبّل.",
  [OutcomeReason.KABOOT]: "كبوت: فريق واحد أكل الأكلات الثماني كلها.",
  [OutcomeReason.REVERSE_KABOOT]: "كبوت مقلوب: المشتري على يمين الموزع ومعه إكة وما أكل ولا أكلة.",
  [OutcomeReason.RAW_HALF]: "حسمها نصف الأبناط.",
  [OutcomeReason.QAYD]: "انتهت الجولة بقيد، والفريق الفائز أخذ النقاط.",
};

/**
 * The explanation of a round's score: the engine's English paragraph, or in Arabic a sentence
 * from the score's fields. `teamName` names a team (0 or 1) as the page does.
 */
export function scoreExplanation(lang: Lang, score: RoundScore, teamName: (team: number) => string): string {
  if (lang === "en") {
    return score.explanation;
  }
  const contract = score.contract;
  const buyer = contract?.buyerTeam ?? 0;
  const points = (team: number) => score.teams.find((t) => t.team === team)?.finalPoints ?? 0;
  const kind = contract?.type === ContractType.SUN ? "الصن" : "الحكم";
  const times = (contract?.multiplier ?? 1) > 1 ? ` مضاعف ×${contract?.multiplier}` : "";
  const verdict = score.made ? "نجح في" : "خسر";
  const parts = [
    `الفريق المشتري (${teamName(buyer)}) ${verdict} ${kind}${times}.`,
    REASONS[score.reason] ?? "",
    `نقاط الجولة: ${teamName(0)} ${points(0)}، ${teamName(1)} ${points(1)}.`,
  ];
  return parts.filter((part) => part !== "").join(" ");
}
