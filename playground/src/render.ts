// Drawing the page from the table's state: the four seats around a green table, the user's
// hand with the legal cards lit, the action buttons, the side panels (contract, bids, doubling,
// projects, abnat, score sheet, last round) and the API panel. Everything is drawn again on
// each change; a match is small enough for that.

import {
  BidKind,
  BotLevel,
  ContractType,
  DoublingCall,
  EventKind,
  Preset,
  Phase,
  PlayMode,
  ProjectKind,
  QaydCategory,
  RANK_NAMES,
  SUIT_SYMBOLS,
  Suit,
  cardCode,
  parseCard,
  rankIndex,
  suitIndex,
  type Action,
  type Contract,
  type Event,
  type Project,
  type QaydVerdict,
  type Trick,
  type View,
} from "@baloot-engine/client";

import type { ApiLog, CallRecord } from "./api-log.js";
import { h, replace, type Child } from "./dom.js";
import { dealtHands, qaydAvailable, tricksOf, type LogEntry, type RoundRecord, type Table } from "./game.js";
import {
  bidName,
  callName,
  contractName,
  eventKindName,
  modeName,
  outcomeName,
  phaseName,
  projectName,
  QAYD_CATEGORIES,
  qaydCategoryName,
  redealName,
  suitName,
  words,
  type Lang,
} from "./i18n.js";
import { drawRoundAnalysis } from "./analysis-view.js";
import { scoreExplanation } from "./explain.js";

/** What the drawing needs besides the table. */
export interface Page {
  lang: Lang;
  table: Table | undefined;
  api: ApiLog;
  /** The user's Akka toggle for the next card led. */
  akka: boolean;
  onToggleAkka(): void;
  /** The user's Qayd call being put together (table play). */
  qayd: QaydPick;
  /** Draw again after a change of the page's own state (the Qayd picker). */
  redraw(): void;
}

/** The Qayd picker: open or not, the card picked (its trick and seat) and the rule named. */
export interface QaydPick {
  open: boolean;
  trick?: number;
  seat?: number;
  card?: number;
  category: QaydCategory;
}

const RED_SUITS = new Set([1, 2]);

/** A card face: rank and suit symbol, red for hearts and diamonds. */
export function cardFace(card: number, classes = ""): HTMLSpanElement {
  const suit = suitIndex(card);
  return h(
    "span",
    { class: `card ${RED_SUITS.has(suit) ? "red" : "black"} ${classes}`.trim(), "data-card": cardCode(card) },
    h("span", { class: "rank" }, RANK_NAMES[rankIndex(card)] ?? "?"),
    h("span", { class: "suit" }, SUIT_SYMBOLS[suit] ?? "?"),
  );
}

/** A card as text with its suit symbol: "10♥". */
export function cardText(card: number): string {
  return `${RANK_NAMES[rankIndex(card)] ?? "?"}${SUIT_SYMBOLS[suitIndex(card)] ?? "?"}`;
}

/** A list of card codes from the engine's metadata ("7D,QD") as text with symbols. */
function codesText(codes: readonly string[]): string {
  return codes
    .map((code) => {
      try {
        return cardText(parseCard(code));
      } catch {
        return code;
      }
    })
    .join(" ");
}

function cardList(cards: readonly number[]): HTMLSpanElement {
  return h(
    "span",
    { class: "card-list" },
    cards.map((card) => cardFace(card, "small")),
  );
}

/** The position of a seat around the table, seen from `viewer` at the bottom. */
function position(seat: number, viewer: number): "bottom" | "right" | "top" | "left" {
  return (["bottom", "right", "top", "left"] as const)[(seat - viewer + 4) % 4] ?? "bottom";
}

function levelName(lang: Lang, level: BotLevel): string {
  const w = words(lang);
  return level === BotLevel.RANDOM ? w.levelRandom : level === BotLevel.STRONG ? w.levelStrong : w.levelBasic;
}

/** "You" or "Bot (Basic)", with the compass name of the seat. */
export function seatLabel(lang: Lang, table: Table, seat: number): string {
  const w = words(lang);
  const who = seat === table.userSeat ? w.you : `${w.bot} (${levelName(lang, table.settings.level)})`;
  return `${who} · ${w.seatNames[seat] ?? seat}`;
}

function teamName(lang: Lang, table: Table, team: number): string {
  const w = words(lang);
  const viewerTeam = (table.userSeat ?? 0) % 2;
  return team === viewerTeam ? w.us : w.them;
}

/** The contract in one line: "Hokm ♥ Hearts · bought by … · ×2 · closed". */
export function contractLine(lang: Lang, table: Table, contract: Contract | undefined): string {
  const w = words(lang);
  if (contract === undefined || contract.type === ContractType.UNSPECIFIED) {
    return w.noContract;
  }
  const parts = [contractName(lang, contract.type)];
  if (contract.type === ContractType.HOKM && contract.trump !== Suit.UNSPECIFIED) {
    parts[0] += ` ${suitName(lang, contract.trump)}`;
  }
  if (contract.ashkal) {
    parts[0] += ` (${bidName(lang, BidKind.ASHKAL)})`;
  }
  parts.push(`${w.boughtBy} ${seatLabel(lang, table, contract.buyer)}`);
  parts.push(`${w.multiplier} ×${contract.multiplier || 1}`);
  if (contract.mode === PlayMode.CLOSED) {
    parts.push(w.closed);
  }
  if (contract.gahwa) {
    parts.push(w.gahwa);
  }
  return parts.join(" · ");
}

/** A legal action's button label. */
export function actionLabel(lang: Lang, action: Action): string {
  const chosen = action.action;
  const w = words(lang);
  switch (chosen.case) {
    case "bid":
      return bidName(lang, chosen.value.kind, chosen.value.suit);
    case "doubling":
      return chosen.value.call === DoublingCall.CHOOSE_MODE
        ? modeName(lang, chosen.value.mode)
        : callName(lang, chosen.value.call, chosen.value.mode);
    case "declaration":
      return `${w.declare}: ${chosen.value.kinds.map((kind) => projectName(lang, kind)).join(" + ")}`;
    case "play":
      if (chosen.value.sawa) {
        return w.sawa;
      }
      return `${cardText(chosen.value.card)}${chosen.value.akka ? ` (${w.akka})` : ""}`;
    default:
      return "?";
  }
}

function actionKey(action: Action): string {
  const chosen = action.action;
  switch (chosen.case) {
    case "bid":
      return `bid-${chosen.value.kind}-${chosen.value.suit}`;
    case "doubling":
      return `double-${chosen.value.call}-${chosen.value.mode}`;
    case "declaration":
      return `declare-${chosen.value.kinds.join("-")}`;
    case "play":
      return chosen.value.sawa ? "sawa" : `play-${chosen.value.card}${chosen.value.akka ? "-akka" : ""}`;
    default:
      return "none";
  }
}

/** Draw the whole page into `root`. */
export function render(root: HTMLElement, page: Page): void {
  const table = page.table;
  const lang = page.lang;
  const w = words(lang);
  const view = table?.latest;
  document.body.dataset["phase"] = view === undefined ? "none" : Phase[view.phase];
  document.body.dataset["turn"] = view?.turn === undefined ? "" : String(view.turn);
  document.body.dataset["version"] = view === undefined ? "" : String(view.stateVersion);
  document.body.dataset["lang"] = lang;
  document.body.dataset["refusals"] = String(table?.refusals ?? 0);
  const rules = table?.rules;
  document.body.dataset["preset"] = rules === undefined ? "" : (Preset[rules.preset] ?? "");
  document.body.dataset["target"] = rules?.matchTarget === undefined ? "" : String(rules.matchTarget);
  replace(
    root,
    h(
      "div",
      { class: "layout" },
      h(
        "section",
        { class: "play-area" },
        table === undefined ? h("p", {}, w.connecting) : drawTable(page, table),
        table === undefined ? null : drawControls(page, table),
      ),
      h("aside", { class: "side" }, table === undefined ? null : drawSide(page, table)),
    ),
    h("section", { class: "lower" }, drawApi(page.api, lang), table === undefined ? null : drawLog(lang, table)),
  );
}

function drawTable(page: Page, table: Table): HTMLElement {
  const lang = page.lang;
  const w = words(lang);
  const view = table.latest;
  const viewer = table.userSeat ?? 0;
  const seats = [0, 1, 2, 3].map((seat) => drawSeat(page, table, seat, viewer));
  return h(
    "div",
    { class: "felt", id: "table" },
    seats,
    h(
      "div",
      { class: "center" },
      view === undefined ? null : drawCenter(lang, table, view, viewer),
      table.failure === undefined ? null : h("div", { class: "failure", id: "failure" }, table.failure),
    ),
    view?.phase === Phase.MATCH_OVER ? drawMatchOver(lang, table, view) : null,
    h("div", { class: "abnat-badge" }, drawAbnat(lang, table, view)),
  );
}

function drawSeat(page: Page, table: Table, seat: number, viewer: number): HTMLElement {
  const lang = page.lang;
  const w = words(lang);
  const view = table.latest;
  const own = table.views[seat];
  const isTurn = view?.turn === seat;
  const isDealer = view?.dealer === seat;
  const lastBid = view?.bids.findLast((bid) => bid.seat === seat);
  const lastCall = view?.doublingCalls.findLast((call) => call.seat === seat);
  const declared = view?.declaredProjects.filter((declaration) => declaration.seat === seat) ?? [];
  const baloot = view?.revealedProjects.some((project) => project.seat === seat && project.kind === ProjectKind.BALOOT);
  const handSize = view?.handSizes[seat] ?? 0;
  const showCards = table.userSeat === undefined && own !== undefined;
  const bubble =
    view?.phase === Phase.DOUBLING && lastCall !== undefined
      ? callName(lang, lastCall.doubling?.call ?? DoublingCall.UNSPECIFIED, lastCall.doubling?.mode)
      : (view?.phase === Phase.BIDDING || view?.phase === Phase.DOUBLING) && lastBid !== undefined
        ? bidName(lang, lastBid.bid?.kind ?? 0, lastBid.bid?.suit)
        : undefined;
  return h(
    "div",
    {
      class: `seat seat-${position(seat, viewer)}${isTurn ? " turn" : ""}${seat === table.userSeat ? " user" : ""}`,
      "data-seat": seat,
    },
    h(
      "div",
      { class: "seat-name" },
      seatLabel(lang, table, seat),
      isDealer ? h("span", { class: "badge dealer" }, w.dealer) : null,
      isTurn ? h("span", { class: "badge turn" }, w.turn) : null,
      baloot === true ? h("span", { class: "badge baloot" }, projectName(lang, ProjectKind.BALOOT)) : null,
    ),
    h("div", { class: "seat-team" }, `${w.team} ${teamName(lang, table, seat % 2)}`),
    bubble === undefined ? null : h("div", { class: "bubble" }, bubble),
    declared.length === 0
      ? null
      : h(
          "div",
          { class: "declared" },
          declared.flatMap((declaration) => declaration.kinds.map((kind) => projectName(lang, kind))).join(" + "),
        ),
    seat === table.userSeat
      ? null
      : showCards
        ? cardList(own.hand)
        : h(
            "div",
            { class: "backs" },
            Array.from({ length: handSize }, () => h("span", { class: "card back small" }, "")),
          ),
  );
}

function drawCenter(lang: Lang, table: Table, view: View, viewer: number): HTMLElement {
  const w = words(lang);
  const current = view.currentTrick;
  const showLast = (current === undefined || current.cards.length === 0) && view.lastTrick !== undefined;
  const trick: Trick | undefined = showLast ? view.lastTrick : current;
  const slots = (trick?.cards ?? []).map((played) =>
    h(
      "div",
      { class: `slot slot-${position(played.seat, viewer)}` },
      cardFace(played.card, played.seat === trick?.winner ? "winner" : ""),
    ),
  );
  const revealed =
    view.revealedCard !== undefined && (view.phase === Phase.BIDDING || view.phase === Phase.DOUBLING)
      ? h("div", { class: "revealed" }, h("div", { class: "caption" }, w.revealedCard), cardFace(view.revealedCard))
      : null;
  const caption =
    trick !== undefined && trick.cards.length > 0
      ? `${showLast ? w.lastTrick : w.trick} ${trick.number}${
          trick.winner !== undefined && showLast ? ` → ${seatLabel(lang, table, trick.winner)} (${trick.abnat})` : ""
        }`
      : phaseName(lang, view.phase);
  return h(
    "div",
    { class: `trick${showLast ? " last" : ""}`, id: "trick" },
    h("div", { class: "caption" }, caption),
    revealed,
    slots,
  );
}

function drawAbnat(lang: Lang, table: Table, view: View | undefined): Child {
  const w = words(lang);
  if (view === undefined) {
    return null;
  }
  const score = view.matchScore?.points ?? [0, 0];
  return [
    h(
      "div",
      { class: "match-score", id: "match-score" },
      [0, 1].map((team) => h("span", {}, `${teamName(lang, table, team)} ${score[team] ?? 0}`)),
      h("span", { class: "target" }, `/ ${view.matchScore?.target ?? ""}`),
    ),
    h(
      "div",
      { class: "abnat", id: "abnat" },
      `${w.abnat}: `,
      [0, 1].map((team) =>
        h(
          "span",
          {},
          `${teamName(lang, table, team)} ${view.abnatWon[team] ?? 0} (${view.tricksWon[team] ?? 0} ${w.tricks})`,
        ),
      ),
    ),
  ];
}

function drawMatchOver(lang: Lang, table: Table, view: View): HTMLElement {
  const w = words(lang);
  const winner = view.matchScore?.winnerTeam;
  return h(
    "div",
    { class: "match-over", id: "match-over" },
    h("strong", {}, w.matchOver),
    winner === undefined ? null : h("div", {}, `${w.team} ${teamName(lang, table, winner)} ${w.winner}`),
    h("div", {}, (view.matchScore?.points ?? []).join(" : ")),
  );
}

function drawControls(page: Page, table: Table): HTMLElement {
  const lang = page.lang;
  const w = words(lang);
  const seat = table.userSeat;
  const view = seat === undefined ? undefined : table.views[seat];
  const legal = view?.legalActions ?? [];
  const legalCards = new Set<number>();
  for (const action of legal) {
    if (action.action.case === "play" && !action.action.value.sawa) {
      legalCards.add(action.action.value.card);
    }
  }
  const buttons: HTMLElement[] = [];
  const phase = table.latest?.phase;
  if (table.awaitingNextRound && seat !== undefined) {
    buttons.push(h("button", { class: "primary", id: "next-round", onclick: () => table.nextRound() }, w.nextRound));
  } else if (
    seat !== undefined &&
    (phase === Phase.AWAITING_DEAL || phase === Phase.ROUND_OVER) &&
    table.latest?.dealer === seat
  ) {
    buttons.push(h("button", { class: "primary", id: "deal", onclick: () => void table.userDeal() }, w.deal));
  }
  for (const action of legal) {
    const chosen = action.action;
    if (chosen.case === "play" && !chosen.value.sawa && !chosen.value.akka) {
      continue; // plain card plays are the cards of the hand
    }
    if (chosen.case === "play" && chosen.value.akka) {
      continue; // Akka calls are the toggle below
    }
    if (chosen.case === "deal") {
      continue; // the dealer's deal is the deal button above
    }
    buttons.push(
      h(
        "button",
        { class: "action", "data-action": actionKey(action), onclick: () => void table.userAct(action) },
        actionLabel(lang, action),
      ),
    );
  }
  const akkaPossible = legal.some((action) => action.action.case === "play" && action.action.value.akka);
  if (akkaPossible) {
    buttons.push(
      h(
        "label",
        { class: "toggle" },
        h("input", { type: "checkbox", id: "akka", checked: page.akka, onchange: () => page.onToggleAkka() }),
        ` ${w.akka}`,
      ),
    );
  }
  const tablePlay = table.settings.table;
  const round = table.currentRound;
  const canQayd = qaydAvailable(tablePlay, seat, table.latest, round);
  if (canQayd) {
    buttons.push(
      h(
        "button",
        {
          class: `action${page.qayd.open ? " active" : ""}`,
          id: "qayd",
          onclick: () => {
            page.qayd.open = !page.qayd.open;
            page.redraw();
          },
        },
        w.qayd,
      ),
    );
  }
  const reviewing = phase === Phase.ROUND_REVIEW;
  if (reviewing && seat !== undefined && !table.botsMoving) {
    buttons.push(
      h("button", { class: "primary", id: "close-review", onclick: () => void table.closeReview() }, w.closeReview),
    );
  }
  const hand = view?.hand ?? [];
  const myTurn = view !== undefined && view.turn === seat && phase === Phase.PLAYING;
  return h(
    "div",
    { class: "controls" },
    seat === undefined
      ? null
      : h(
          "div",
          { class: "hand-area" },
          h(
            "div",
            { class: "hand-title" },
            `${w.yourHand} — ${seatLabel(lang, table, seat)}`,
            myTurn ? h("span", { class: "badge turn" }, w.yourTurn) : null,
          ),
          h(
            "div",
            { class: "hand", id: "hand" },
            hand.map((card) =>
              h(
                "button",
                {
                  class: `card-button${legalCards.has(card) ? " legal" : myTurn ? " dim" : ""}`,
                  "data-card": cardCode(card),
                  title: cardCode(card),
                  onclick: () =>
                    void table.userAct({
                      $typeName: "baloot.v1.Action",
                      action: {
                        case: "play",
                        value: {
                          $typeName: "baloot.v1.CardPlay",
                          card,
                          akka:
                            page.akka &&
                            legal.some(
                              (a) => a.action.case === "play" && a.action.value.akka && a.action.value.card === card,
                            ),
                          sawa: false,
                        },
                      },
                    }),
                },
                cardFace(card),
              ),
            ),
          ),
          phase === Phase.PLAYING && !tablePlay ? h("div", { class: "hint" }, w.legalHint) : null,
          phase === Phase.PLAYING && tablePlay ? h("div", { class: "hint", id: "table-note" }, w.tablePlayNote) : null,
          reviewing ? h("div", { class: "hint", id: "review-note" }, w.reviewNote) : null,
        ),
    h("div", { class: "actions", id: "actions" }, buttons),
    canQayd && page.qayd.open && seat !== undefined ? drawQaydPicker(page, table, seat) : null,
    drawVerdict(lang, table, round),
    table.refusal === undefined ? null : drawRefusal(lang, table),
  );
}

/** The Qayd picker: the other team's cards of the tricks so far, the rule to name, and send. */
function drawQaydPicker(page: Page, table: Table, seat: number): HTMLElement {
  const lang = page.lang;
  const w = words(lang);
  const pick = page.qayd;
  const tricks = tricksOf(table.currentRound);
  const picked = pick.card !== undefined && pick.trick !== undefined && pick.seat !== undefined;
  return h(
    "div",
    { class: "qayd-picker", id: "qayd-picker" },
    h("div", { class: "hint" }, w.qaydPick),
    h(
      "div",
      { class: "qayd-tricks" },
      tricks.map((cards, index) =>
        h(
          "div",
          { class: "qayd-trick", "data-trick": index + 1 },
          h("span", { class: "who" }, `${w.trick} ${index + 1}`),
          cards
            .filter((played) => played.seat % 2 !== seat % 2)
            .map((played) =>
              h(
                "button",
                {
                  class: `card-button qayd-card${pick.card === played.card ? " picked" : ""}`,
                  "data-card": cardCode(played.card),
                  "data-seat": played.seat,
                  "data-trick": index + 1,
                  title: seatLabel(lang, table, played.seat),
                  onclick: () => {
                    pick.trick = index + 1;
                    pick.seat = played.seat;
                    pick.card = played.card;
                    page.redraw();
                  },
                },
                cardFace(played.card, "small"),
              ),
            ),
        ),
      ),
    ),
    h(
      "label",
      {},
      `${w.qaydRule} `,
      h(
        "select",
        {
          id: "qayd-category",
          onchange: (change: globalThis.Event) => {
            pick.category = Number((change.target as HTMLSelectElement).value) as QaydCategory;
          },
        },
        [QaydCategory.UNSPECIFIED, ...QAYD_CATEGORIES].map((category) =>
          h(
            "option",
            { value: category, selected: category === pick.category },
            category === QaydCategory.UNSPECIFIED ? w.qaydAnyRule : qaydCategoryName(lang, category),
          ),
        ),
      ),
    ),
    h(
      "button",
      {
        class: "primary",
        id: "qayd-send",
        disabled: !picked,
        onclick: () => {
          if (pick.card !== undefined && pick.trick !== undefined && pick.seat !== undefined) {
            const call = [pick.seat, pick.trick, pick.card, pick.category] as const;
            page.qayd = { open: false, category: QaydCategory.UNSPECIFIED };
            page.redraw();
            void table.userQayd(...call);
          }
        },
      },
      w.qaydSend,
    ),
  );
}

/** The last Qayd verdict of the round: who called whom, the rule, the verdict, the evidence. */
function drawVerdict(lang: Lang, table: Table, round: RoundRecord | undefined): HTMLElement | null {
  const verdict = round?.verdicts.at(-1);
  if (round === undefined || verdict === undefined) {
    return null;
  }
  const w = words(lang);
  const score = round.score;
  return h(
    "div",
    {
      class: `verdict ${verdict.correct ? "correct" : "wrong"}`,
      id: "verdict",
      role: "status",
      "data-correct": String(verdict.correct),
      "data-caller": verdict.caller === undefined ? "" : String(verdict.caller),
      "data-accused": String(verdict.accused),
      "data-card": verdict.card === undefined ? "" : cardCode(verdict.card),
      "data-category": QaydCategory[verdict.category] ?? String(verdict.category),
      "data-evidence": verdict.evidence.map(cardCode).join(" "),
    },
    h("strong", { id: "verdict-result" }, `${w.qayd}: ${verdict.correct ? w.qaydRight : w.qaydWrong}`),
    h("div", {}, verdictLine(lang, table, verdict)),
    verdict.evidence.length === 0
      ? null
      : h("div", { id: "verdict-evidence" }, `${w.qaydEvidence}: `, cardList(verdict.evidence)),
    verdict.winningTeam === undefined
      ? null
      : h("div", {}, `${w.qaydWinner}: ${teamName(lang, table, verdict.winningTeam)}`),
    score === undefined
      ? null
      : h(
          "div",
          { id: "verdict-score" },
          `${w.roundScore}: ${teamName(lang, table, 0)} ${score.teams[0]?.finalPoints ?? 0} : ${teamName(lang, table, 1)} ${score.teams[1]?.finalPoints ?? 0}`,
        ),
  );
}

/** A verdict in one line: caller → accused, the trick, the card and the rule. */
function verdictLine(lang: Lang, table: Table, verdict: QaydVerdict): string {
  const w = words(lang);
  const caller = verdict.caller === undefined ? w.qaydEngine : seatLabel(lang, table, verdict.caller);
  const card = verdict.card === undefined ? "" : ` ${ltr(cardText(verdict.card))}`;
  const rule = verdict.category === QaydCategory.UNSPECIFIED ? w.qaydAnyRule : qaydCategoryName(lang, verdict.category);
  return `${caller} → ${seatLabel(lang, table, verdict.accused)} · ${w.trick} ${verdict.trick}${card} · ${rule}`;
}

function drawRefusal(lang: Lang, table: Table): HTMLElement | null {
  const refusal = table.refusal;
  if (refusal === undefined) {
    return null;
  }
  const w = words(lang);
  const allowed = (refusal.error.metadata["allowed"] ?? "").split(",").filter((code) => code !== "");
  return h(
    "div",
    { class: "refusal", id: "refusal", role: "alert" },
    h("strong", {}, `${w.refused}: `),
    h(
      "bdi",
      { class: "action-name", dir: refusal.action.action.case === "play" ? "ltr" : "auto" },
      actionLabel(lang, refusal.action),
    ),
    " — ",
    h("code", { class: "reason", id: "refusal-reason" }, refusal.error.reason),
    " ",
    h("span", { class: "code" }, `(${refusal.error.codeName})`),
    // The engine's LocalizedMessage, in the page's language (the client asks for it).
    h(
      "div",
      { class: "message", id: "refusal-message", "data-locale": refusal.error.localized?.locale ?? "", dir: "auto" },
      refusal.error.display,
    ),
    allowed.length === 0
      ? null
      : h(
          "div",
          { class: "allowed", id: "refusal-allowed", "data-allowed": allowed.join(" ") },
          `${w.allowed}: `,
          h("bdi", { dir: "ltr" }, codesText(allowed)),
        ),
  );
}

function drawSide(page: Page, table: Table): Child[] {
  const lang = page.lang;
  const w = words(lang);
  const view = table.latest;
  if (view === undefined) {
    return [];
  }
  return [
    h(
      "section",
      { class: "panel", id: "status" },
      h("h2", {}, `${w.round} ${view.roundNumber} · ${phaseName(lang, view.phase)}`),
      h(
        "div",
        { class: "contract", id: "contract" },
        h("strong", {}, `${w.contract}: `),
        contractLine(lang, table, view.contract),
      ),
      h("div", { class: "dealer-line" }, `${w.dealer}: ${seatLabel(lang, table, view.dealer)}`),
      view.turn === undefined ? null : h("div", {}, `${w.waiting}: ${seatLabel(lang, table, view.turn)}`),
    ),
    h(
      "section",
      { class: "panel", id: "bids" },
      h("h2", {}, w.bids),
      view.bids.length === 0
        ? h("div", { class: "muted" }, "—")
        : h(
            "ol",
            { class: "chain" },
            view.bids.map((bid) =>
              h("li", {}, `${seatLabel(lang, table, bid.seat)}: ${bidName(lang, bid.bid?.kind ?? 0, bid.bid?.suit)}`),
            ),
          ),
      h("h2", {}, w.doublingChain),
      view.doublingCalls.length === 0
        ? h("div", { class: "muted" }, "—")
        : h(
            "ol",
            { class: "chain", id: "doubling" },
            view.doublingCalls.map((call) =>
              h(
                "li",
                {},
                `${seatLabel(lang, table, call.seat)}: ${callName(lang, call.doubling?.call ?? 0, call.doubling?.mode)}`,
              ),
            ),
          ),
    ),
    h(
      "section",
      { class: "panel", id: "projects" },
      h("h2", {}, w.projects),
      view.declaredProjects.length === 0 && view.revealedProjects.length === 0
        ? h("div", { class: "muted" }, "—")
        : [
            view.declaredProjects.map((declaration) =>
              h(
                "div",
                {},
                `${seatLabel(lang, table, declaration.seat)} ${w.declared}: `,
                declaration.kinds.map((kind) => projectName(lang, kind)).join(" + "),
              ),
            ),
            view.revealedProjects.map((project) => drawProject(lang, table, project)),
          ],
    ),
    drawSheet(lang, table),
    drawRoundSummary(lang, table),
    drawRoundAnalysis(lang, table),
  ];
}

function drawProject(lang: Lang, table: Table, project: Project): HTMLElement {
  const w = words(lang);
  return h(
    "div",
    { class: "project" },
    `${seatLabel(lang, table, project.seat)} ${w.revealed}: ${projectName(lang, project.kind)} (${project.abnat}) `,
    cardList(project.cards),
  );
}

function drawSheet(lang: Lang, table: Table): HTMLElement {
  const w = words(lang);
  const start = table.settings.start;
  const rows: HTMLElement[] = [
    h("tr", { class: "start" }, h("td", {}, w.start0), h("td", {}, ""), h("td", {}, start[0]), h("td", {}, start[1])),
  ];
  for (const round of table.rounds) {
    if (round.redeal !== undefined) {
      rows.push(
        h(
          "tr",
          { class: "redeal" },
          h("td", {}, round.number),
          h("td", { colspan: 3 }, `${w.redeal}: ${redealName(lang, round.redeal.reason)}`),
        ),
      );
    } else if (round.score !== undefined) {
      const teams = round.score.teams;
      rows.push(
        h(
          "tr",
          { class: "scored" },
          h("td", {}, round.number),
          h(
            "td",
            {},
            contractLine(lang, table, round.score.contract).split(" · ").slice(0, 1).join(""),
            ` ×${round.score.contract?.multiplier || 1}`,
          ),
          h("td", {}, teams[0]?.finalPoints ?? 0),
          h("td", {}, teams[1]?.finalPoints ?? 0),
        ),
      );
    }
  }
  const totals = table.latest?.matchScore?.points ?? start;
  return h(
    "section",
    { class: "panel", id: "sheet" },
    h("h2", {}, w.sheet),
    h(
      "table",
      { class: "sheet" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", {}, w.round),
          h("th", {}, w.contract),
          h("th", {}, teamName(lang, table, 0)),
          h("th", {}, teamName(lang, table, 1)),
        ),
      ),
      h("tbody", {}, rows),
      h(
        "tfoot",
        {},
        h("tr", {}, h("th", {}, w.total), h("th", {}, ""), h("th", {}, totals[0] ?? 0), h("th", {}, totals[1] ?? 0)),
      ),
    ),
  );
}

/**
 * The summary of the last scored round: the dealt hands (from the round reveal, see dealtHands
 * in game.ts), the Qayd verdicts and the score breakdown per team.
 */
function drawRoundSummary(lang: Lang, table: Table): HTMLElement | null {
  const round: RoundRecord | undefined = table.lastScoredRound;
  const score = round?.score;
  if (round === undefined || score === undefined) {
    return null;
  }
  const w = words(lang);
  const hands = dealtHands(round);
  const line = (label: string, pick: (team: number) => number | string): HTMLElement =>
    h(
      "tr",
      {},
      h("th", {}, label),
      [0, 1].map((team) => h("td", {}, pick(team))),
    );
  const team = (index: number) => score.teams[index];
  return h(
    "section",
    { class: "panel summary", id: "round-summary" },
    h("h2", {}, `${w.roundSummary}: ${w.round} ${round.number}`),
    h("div", {}, contractLine(lang, table, score.contract)),
    h(
      "div",
      { class: `outcome ${score.made ? "made" : "failed"}` },
      `${score.made ? w.made : w.failed} — ${outcomeName(lang, score.reason)}`,
      score.kabootTeam === undefined ? null : ` · ${w.kaboot} ${teamName(lang, table, score.kabootTeam)}`,
    ),
    h("h3", {}, w.dealtHands),
    h(
      "div",
      { class: "dealt", id: "dealt-hands", "data-source": round.reveal === undefined ? "plays" : "reveal" },
      hands.map((hand, seat) =>
        h("div", { class: "dealt-row" }, h("span", { class: "who" }, seatLabel(lang, table, seat)), cardList(hand)),
      ),
    ),
    h("div", { class: "muted" }, round.reveal === undefined ? w.dealtNote : w.dealtRevealNote),
    round.verdicts.map((verdict) =>
      h(
        "div",
        { class: `verdict-line ${verdict.correct ? "correct" : "wrong"}` },
        `${w.qayd} (${verdict.correct ? w.qaydRight : w.qaydWrong}): ${verdictLine(lang, table, verdict)}`,
      ),
    ),
    h("h3", {}, w.breakdown),
    h(
      "table",
      { class: "breakdown", id: "breakdown" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", {}, ""),
          [0, 1].map((index) => h("th", {}, teamName(lang, table, index))),
        ),
      ),
      h(
        "tbody",
        {},
        line(w.tricks, (i) => team(i)?.tricks ?? 0),
        line(w.cardAbnat, (i) => team(i)?.cardAbnat ?? 0),
        line(w.cardPoints, (i) => team(i)?.cardPoints ?? 0),
        line(w.projectPoints, (i) => team(i)?.projectPoints ?? 0),
        line(w.balootPoints, (i) => team(i)?.balootPoints ?? 0),
        line(w.finalPoints, (i) => team(i)?.finalPoints ?? 0),
      ),
    ),
    h(
      "p",
      { class: "explanation", id: "score-explanation", lang, dir: lang === "ar" ? "rtl" : "ltr" },
      scoreExplanation(lang, score, (index) => teamName(lang, table, index)),
    ),
  );
}

function drawApi(api: ApiLog, lang: Lang): HTMLElement {
  const w = words(lang);
  return h(
    "section",
    { class: "panel api", id: "api" },
    h("h2", {}, w.api),
    h("div", { class: "muted" }, w.apiHint),
    api.calls.map((call, index) => drawCall(call, index === 0, lang)),
  );
}

function drawCall(call: CallRecord, open: boolean, lang: Lang): HTMLElement {
  const w = words(lang);
  const status = call.error === undefined ? "OK" : `${call.error.code} ${call.error.reason}`;
  return h(
    "details",
    { class: `call${call.error === undefined ? "" : " refused"}`, open, "data-method": call.method },
    h("summary", {}, `#${call.id} ${call.method} — ${status} — ${call.millis} ms`),
    h(
      "div",
      { class: "json-pair", dir: "ltr" },
      h("div", {}, h("h4", {}, w.request), h("pre", {}, JSON.stringify(call.request, null, 2))),
      h(
        "div",
        {},
        h("h4", {}, call.error === undefined ? w.response : w.error),
        h("pre", {}, JSON.stringify(call.error ?? call.response, null, 2)),
      ),
    ),
  );
}

function drawLog(lang: Lang, table: Table): HTMLElement {
  const w = words(lang);
  return h(
    "section",
    { class: "panel log", id: "log" },
    h("h2", {}, w.log),
    h(
      "ol",
      { class: "events" },
      table.log.map((entry) => drawEntry(lang, table, entry)),
    ),
  );
}

function drawEntry(lang: Lang, table: Table, entry: LogEntry): HTMLElement {
  if (entry.event?.detail.case === "qayd") {
    const verdict = entry.event.detail.value;
    const evidence =
      verdict.evidence.length === 0
        ? ""
        : ` · ${words(lang).qaydEvidence}: ${ltr(verdict.evidence.map(cardText).join(" "))}`;
    return h(
      "li",
      { class: "qayd", dir: "auto", "data-correct": String(verdict.correct) },
      `${versionText(entry.version)} ${eventKindName(lang, entry.event.kind)}: ${verdict.correct ? words(lang).qaydRight : words(lang).qaydWrong} · ${verdictLine(lang, table, verdict)}${evidence}`,
    );
  }
  if (entry.refusal !== undefined) {
    const error = entry.refusal.error;
    return h(
      "li",
      { class: "refused", dir: lang === "ar" ? "rtl" : "ltr" },
      `${versionText(entry.version)} ${words(lang).refused} ${ltr(error.reason)}: ${error.display}`,
    );
  }
  const event = entry.event as Event;
  const seat = event.seat === undefined ? "" : ` ${seatLabel(lang, table, event.seat)}`;
  return h(
    "li",
    { dir: lang === "ar" ? "rtl" : "ltr", "data-kind": EventKind[event.kind] ?? "" },
    `${versionText(entry.version)} ${eventKindName(lang, event.kind)}${seat}${eventDetail(lang, table, event)}`,
  );
}

/** Text kept left to right inside a line of either direction (a Unicode left-to-right isolate). */
function ltr(text: string): string {
  return `\u2066${text}\u2069`;
}

/** A state version in the log: "v12", whole in a right-to-left line. */
function versionText(version: bigint): string {
  return ltr(`v${version}`);
}

function eventDetail(lang: Lang, table: Table, event: Event): string {
  const detail = event.detail;
  switch (detail.case) {
    case "bid":
      return `: ${bidName(lang, detail.value.kind, detail.value.suit)}`;
    case "doubling":
      return `: ${callName(lang, detail.value.call, detail.value.mode)}`;
    case "play":
      return `: ${ltr(cardText(detail.value.card))}${detail.value.akka ? ` (${words(lang).akka})` : ""}`;
    case "trick":
      return detail.value.winner === undefined
        ? ""
        : `: → ${seatLabel(lang, table, detail.value.winner)} (${detail.value.abnat})`;
    case "contract":
      return `: ${contractLine(lang, table, detail.value)}`;
    case "projects":
      return `: ${detail.value.projects.map((project) => `${projectName(lang, project.kind)} ${ltr(project.cards.map(cardText).join(" "))}`).join(lang === "ar" ? "، " : ", ")}`;
    case "declaration":
      return `: ${detail.value.kinds.map((kind) => projectName(lang, kind)).join(" + ")}`;
    case "roundScore":
      return `: ${ltr(detail.value.teams.map((team) => team.finalPoints).join(" : "))}`;
    case "matchScore":
      return `: ${ltr(detail.value.points.join(" : "))}`;
    case "deal":
      return detail.value.revealedCard === undefined ? "" : `: ${ltr(cardText(detail.value.revealedCard))}`;
    case "redeal":
      return `: ${redealName(lang, detail.value.reason)}`;
    case "reveal":
      return `: ${words(lang).round} ${detail.value.roundNumber}`;
    default:
      return event.kind === EventKind.UNSPECIFIED ? "?" : "";
  }
}
