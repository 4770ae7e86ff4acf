// The playground's entry point: settings from the URL and the settings bar, the gRPC-Web client
// of @baloot-engine/client through the Envoy gateway, and one Table drawn on every change.
//
// URL parameters (all optional):
//   gateway=http://127.0.0.1:8080   the gRPC-Web base URL (default: port 8080 of this page's host)
//   mode=play|watch                 play one seat against three bots, or watch four bots
//   seat=0..3                       the user's seat (default 0, South)
//   level=random|basic|strong       the bots' level (default basic)
//   delay=700                       milliseconds a bot waits before it acts
//   start=140:140                   the match score to start from (continuing a match)
//   target=152                      the target score (default: the rule set's)
//   preset=seeds|kammelna|federation  the rule preset (default seeds)
// The settings bar sets every one of them too (the URL follows it, so a link keeps them).
//   table=1                         table play: any card held is accepted, Qayd calls judge it
//   lang=en|ar                      the language (Arabic is laid out right to left)

import { BotLevel, Preset, QaydCategory } from "@baloot-engine/client";
import { connectGrpcWeb } from "@baloot-engine/client/web";

import { ApiLog } from "./api-log.js";
import { h, replace } from "./dom.js";
import { Table, type Settings } from "./game.js";
import { words, type Lang } from "./i18n.js";
import { render, type Page } from "./render.js";

const LEVELS: Record<string, BotLevel> = { random: BotLevel.RANDOM, basic: BotLevel.BASIC, strong: BotLevel.STRONG };
const PRESETS: Record<string, Preset> = {
  seeds: Preset.SEEDS,
  kammelna: Preset.KAMMELNA,
  federation: Preset.FEDERATION,
};

function intParam(params: URLSearchParams, name: string, low: number, high: number): number | undefined {
  const text = params.get(name);
  if (text === null || text.trim() === "") {
    return undefined;
  }
  const value = Number(text);
  return Number.isInteger(value) && value >= low && value <= high ? value : undefined;
}

/** The settings the URL asks for, with defaults for what it leaves out or gets wrong. */
export function settingsFromUrl(url: URL): Settings & { lang: Lang } {
  const params = url.searchParams;
  const start = (params.get("start") ?? "0:0").split(":").map(Number);
  const [us, them] =
    start.length === 2 && start.every((n) => Number.isInteger(n) && n >= 0 && n < 1000) ? start : [0, 0];
  return {
    gateway: params.get("gateway") ?? `${url.protocol}//${url.hostname || "127.0.0.1"}:8080`,
    mode: params.get("mode") === "watch" ? "watch" : "play",
    seat: intParam(params, "seat", 0, 3) ?? 0,
    level: LEVELS[params.get("level") ?? ""] ?? BotLevel.BASIC,
    delayMs: intParam(params, "delay", 0, 10_000) ?? 700,
    start: [us ?? 0, them ?? 0],
    target: intParam(params, "target", 1, 10_000),
    preset: PRESETS[params.get("preset") ?? ""] ?? Preset.SEEDS,
    table: params.get("table") === "1",
    lang: params.get("lang") === "ar" ? "ar" : "en",
  };
}

function presetKey(preset: Preset): string {
  return Object.entries(PRESETS).find(([, value]) => value === preset)?.[0] ?? "seeds";
}

function levelKey(level: BotLevel): string {
  return Object.entries(LEVELS).find(([, value]) => value === level)?.[0] ?? "basic";
}

/** The longest a held button keeps the page from being drawn again. */
const HOLD_MS = 2_000;

class App {
  readonly page: Page;
  settings: Settings & { lang: Lang };
  readonly #root: HTMLElement;
  readonly #bar: HTMLElement;
  #scheduled = false;
  // A click is a press and a release on the same element. The page is drawn anew on every
  // change (the bots' moves, every API call), which would replace the element under a pressed
  // button and lose the click, so drawing waits while a button is held (up to HOLD_MS).
  #pressedAt: number | undefined = undefined;
  #deferred = false;

  constructor(root: HTMLElement, bar: HTMLElement, settings: Settings & { lang: Lang }) {
    this.#root = root;
    this.#bar = bar;
    this.settings = settings;
    const api = new ApiLog();
    api.onChange = () => this.schedule();
    window.addEventListener("pointerdown", () => (this.#pressedAt = performance.now()), { capture: true });
    const release = (): void => {
      this.#pressedAt = undefined;
      if (this.#deferred) {
        this.#deferred = false;
        // After the click that the release makes, which is dispatched in this same task.
        setTimeout(() => this.schedule(), 0);
      }
    };
    window.addEventListener("pointerup", release, { capture: true });
    window.addEventListener("pointercancel", release, { capture: true });
    this.page = {
      lang: settings.lang,
      table: undefined,
      api,
      akka: false,
      onToggleAkka: () => {
        this.page.akka = !this.page.akka;
        this.schedule();
      },
      qayd: { open: false, category: QaydCategory.UNSPECIFIED },
      redraw: () => this.schedule(),
    };
  }

  /** Start a new match with the current settings (stopping the bots of the previous one). */
  newMatch(): void {
    this.page.table?.stop();
    // Refusals come back with the engine's LocalizedMessage in the page's language.
    const client = connectGrpcWeb(this.settings.gateway, {
      interceptors: [this.page.api.interceptor],
      language: this.settings.lang,
    });
    const table = new Table(client, { ...this.settings });
    table.onChange = () => this.schedule();
    this.page.table = table;
    this.page.akka = false;
    this.page.qayd = { open: false, category: QaydCategory.UNSPECIFIED };
    this.schedule();
    void table.start();
  }

  setLang(lang: Lang): void {
    this.settings.lang = lang;
    this.page.lang = lang;
    if (this.page.table !== undefined) {
      this.page.table.client.language = lang;
    }
    this.#syncUrl();
    this.drawBar();
    this.schedule();
  }

  /** Draw at the next frame (many changes in one task draw once). */
  schedule(): void {
    if (!this.#scheduled) {
      this.#scheduled = true;
      requestAnimationFrame(() => {
        this.#scheduled = false;
        const pressedAt = this.#pressedAt;
        if (pressedAt !== undefined && performance.now() - pressedAt < HOLD_MS) {
          if (!this.#deferred) {
            this.#deferred = true;
            setTimeout(() => this.schedule(), HOLD_MS - (performance.now() - pressedAt));
          }
          return;
        }
        this.#deferred = false;
        render(this.#root, this.page);
      });
    }
  }

  /** The header: title, settings and the language switch. */
  drawBar(): void {
    const lang = this.settings.lang;
    const w = words(lang);
    document.documentElement.lang = lang;
    document.documentElement.dir = lang === "ar" ? "rtl" : "ltr";
    document.title = w.title;
    const s = this.settings;
    const select = (id: string, value: string, options: [string, string][], onChange: (value: string) => void) =>
      h(
        "select",
        { id, onchange: (event: Event) => onChange((event.target as HTMLSelectElement).value) },
        options.map(([key, label]) => h("option", { value: key, selected: key === value }, label)),
      );
    replace(
      this.#bar,
      h("div", { class: "brand" }, h("h1", {}, w.title), h("div", { class: "subtitle" }, w.subtitle)),
      h(
        "form",
        {
          class: "settings",
          id: "settings",
          onsubmit: (event: Event) => {
            event.preventDefault();
            this.#syncUrl();
            this.newMatch();
          },
        },
        h(
          "label",
          {},
          w.mode,
          select(
            "mode",
            s.mode,
            [
              ["play", w.modePlay],
              ["watch", w.modeWatch],
            ],
            (value) => (s.mode = value === "watch" ? "watch" : "play"),
          ),
        ),
        h(
          "label",
          {},
          w.seat,
          select(
            "seat",
            String(s.seat),
            [0, 1, 2, 3].map((seat) => [String(seat), w.seatNames[seat] ?? String(seat)]),
            (value) => (s.seat = Number(value)),
          ),
        ),
        h(
          "label",
          {},
          w.level,
          select(
            "level",
            levelKey(s.level),
            [
              ["random", w.levelRandom],
              ["basic", w.levelBasic],
              ["strong", w.levelStrong],
            ],
            (value) => (s.level = LEVELS[value] ?? BotLevel.BASIC),
          ),
        ),
        h(
          "label",
          {},
          w.preset,
          select(
            "preset",
            presetKey(s.preset),
            [
              ["seeds", w.presetSeeds],
              ["kammelna", w.presetKammelna],
              ["federation", w.presetFederation],
            ],
            (value) => (s.preset = PRESETS[value] ?? Preset.SEEDS),
          ),
        ),
        h(
          "label",
          {},
          w.target,
          h("input", {
            id: "target",
            type: "number",
            min: 1,
            max: 10000,
            step: 1,
            placeholder: w.targetDefault,
            value: s.target ?? "",
            onchange: (event: Event) => {
              const text = (event.target as HTMLInputElement).value.trim();
              const value = Number(text);
              s.target = text !== "" && Number.isInteger(value) && value >= 1 && value <= 10_000 ? value : undefined;
            },
          }),
        ),
        h(
          "label",
          {},
          w.start,
          h("input", {
            id: "start",
            size: 7,
            value: `${s.start[0]}:${s.start[1]}`,
            onchange: (event: Event) => {
              const parts = (event.target as HTMLInputElement).value.split(":").map(Number);
              if (parts.length === 2 && parts.every((n) => Number.isInteger(n) && n >= 0)) {
                s.start = [parts[0] ?? 0, parts[1] ?? 0];
              }
            },
          }),
        ),
        h(
          "label",
          {},
          w.delay,
          h("input", {
            id: "delay",
            type: "number",
            min: 0,
            max: 10000,
            step: 100,
            value: s.delayMs,
            onchange: (event: Event) => {
              const value = Number((event.target as HTMLInputElement).value);
              if (Number.isInteger(value) && value >= 0) {
                s.delayMs = value;
              }
            },
          }),
        ),
        h(
          "label",
          { class: "toggle", title: w.tablePlayHint },
          h("input", {
            id: "table-play",
            type: "checkbox",
            checked: s.table,
            onchange: (event: Event) => (s.table = (event.target as HTMLInputElement).checked),
          }),
          ` ${w.tablePlay}`,
        ),
        h("button", { type: "submit", class: "primary", id: "new-match" }, w.newMatch),
      ),
      h(
        "button",
        { id: "lang-toggle", class: "lang", onclick: () => this.setLang(lang === "ar" ? "en" : "ar") },
        w.language,
      ),
      h("div", { class: "host-note" }, w.hostNote),
    );
  }

  #syncUrl(): void {
    const url = new URL(window.location.href);
    const s = this.settings;
    url.searchParams.set("mode", s.mode);
    url.searchParams.set("seat", String(s.seat));
    url.searchParams.set("level", levelKey(s.level));
    url.searchParams.set("delay", String(s.delayMs));
    url.searchParams.set("start", `${s.start[0]}:${s.start[1]}`);
    url.searchParams.set("lang", s.lang);
    url.searchParams.set("preset", presetKey(s.preset));
    if (s.target === undefined) {
      url.searchParams.delete("target");
    } else {
      url.searchParams.set("target", String(s.target));
    }
    if (s.table) {
      url.searchParams.set("table", "1");
    } else {
      url.searchParams.delete("table");
    }
    window.history.replaceState(null, "", url);
  }
}

const root = document.getElementById("app");
const bar = document.getElementById("bar");
if (root !== null && bar !== null) {
  const app = new App(root, bar, settingsFromUrl(new URL(window.location.href)));
  app.drawBar();
  app.newMatch();
}
