// The player display (and, with body.overlay, the stream overlay): a table's public view.
// Drawn from the public state (a whole snapshot) and its card events (a card shows the
// moment it is dealt); the timer counts down in the browser from the state's deadline.
import { handView, layoutOf, RESULT } from "/static/hands.js";
import {
  cardsBy, el, handTitle, Link, lightFor, noteClock, PHASES, secondsLeft, statusWords, tableId, words,
} from "/static/common.js";

const table = tableId();
const app = document.getElementById("app");
let state = null;
let link = null;
let history = [];
let yellow = 1;

function timerView(s) {
  const timer = (s && s.timers && s.timers[0]) || null;
  if (!timer) {
    return el("div", { class: "timer idle", "data-timer": "", "data-light": "off" },
      el("div", { class: "lamps" }, ["red", "yellow", "green"].map((c) => el("span", { class: `lamp ${c}` }))),
      el("div", { class: "seconds" }, "–"),
      el("div", { class: "timer-name" }, "No timer running"));
  }
  const left = secondsLeft(timer);
  const light = lightFor(left, timer.yellow_seconds ?? yellow);
  return el("div", { class: `timer ${light}`, "data-timer": Math.ceil(left), "data-light": light, "data-deadline": timer.deadline },
    el("div", { class: "lamps" }, ["red", "yellow", "green"].map((c) => el("span", { class: `lamp ${c}${c === light ? " on" : ""}` }))),
    el("div", { class: "seconds" }, `${Math.ceil(left)}`),
    el("div", { class: "timer-name" }, timer.name === "betting" ? "Betting closes" : "Decide"));
}

function historyView() {
  const rows = history.slice(-8).reverse();
  return el("div", { class: "history" },
    el("h2", {}, "Last rounds"),
    rows.length === 0 ? el("p", { class: "muted" }, "No round played yet") : null,
    el("ol", {}, rows.map((r) => el("li", { "data-round": r.round_id },
      el("span", { class: "round-id" }, r.round_id),
      el("span", { class: "outcome" }, r.outcome === "complete" ? roundLine(r) : r.outcome),
    ))));
}

function roundLine(r) {
  const dealer = r.dealer && r.dealer.name ? `Dealer ${r.dealer.name}` : "Dealer";
  const hands = (r.hands || []).map((h) =>
    `${handTitle(h.hand)}: ${h.folded ? "folded" : `${h.name || "?"}${h.result ? ` (${RESULT[h.result] || h.result})` : ""}`}`);
  return [dealer, ...hands].join(" · ");
}

// each part is redrawn only when what it shows changed (a card's event and the state that
// follows it draw the card once)
const drawn = { key: null, header: "", felt: "", side: "" };

function render() {
  const s = state;
  const [cls, words] = statusWords(link && link.last, s);
  const phase = s ? s.phase : "connecting";
  const headKey = JSON.stringify([s && s.title, cls, words]);
  if (!s) {
    drawn.key = null;
    app.replaceChildren(header(s, cls, words), el("section", { class: "felt empty" }, el("p", { class: "waiting" }, words)));
    drawn.header = headKey;
    return;
  }
  if (drawn.key === null) {
    app.replaceChildren(el("header"), el("div", { class: "body" }, el("section"), el("aside")));
    drawn.key = "drawn";
    drawn.header = drawn.felt = drawn.side = "";
  }
  const lay = layoutOf(s);
  if (headKey !== drawn.header) {
    app.firstElementChild.replaceWith(header(s, cls, words));
    drawn.header = headKey;
  }
  const feltKey = JSON.stringify([lay, phase, s.round_id, s.next, s.halted]);
  const body = app.lastElementChild;
  if (feltKey !== drawn.felt) {
    body.firstElementChild.replaceWith(el("section", { class: `felt${lay.ended ? " ended" : ""}` },
      el("div", { class: "phase", "data-phase": phase }, PHASES[phase] || phase,
        lay.ended ? el("span", { class: "round" }, " · last round's results") :
          s.round_id ? el("span", { class: "round" }, ` · ${s.round_id}`) : null),
      el("div", { class: "row dealer-row" }, handView("dealer", lay.dealer.cards, { name: lay.dealer.name, title: "Dealer" })),
      el("div", { class: "row board-row" }, handView("board", lay.board, { title: "Board" })),
      el("div", { class: "row players" }, lay.hands.map((h) => handView(h.hand, h.cards, h))),
      s.next && !lay.ended ? el("div", { class: "next" }, s.halted ? cap(s.halt_words || "the table is being checked") : cap(s.next)) : null));
    drawn.felt = feltKey;
  }
  const sideKey = JSON.stringify([s.timers, s.limits, history.map((h) => h.round_id)]);
  if (sideKey !== drawn.side) {
    body.lastElementChild.replaceWith(el("aside", { class: "side" }, timerView(s), limitsView(s), historyView()));
    drawn.side = sideKey;
  }
}

function header(s, cls, words) {
  return el("header", { class: "topbar" },
    el("div", { class: "brand" }, s ? s.title : "tablectl"),
    el("div", { class: "where" }, `Table ${table}`),
    el("div", { class: `status ${cls}`, "data-status": cls }, words));
}

function limitsView(s) {
  const rows = Object.entries(s.limits || {});
  if (rows.length === 0) return null;
  return el("div", { class: "limits" }, el("h2", {}, "Limits"),
    el("table", {}, rows.map(([spot, [lo, hi]]) => el("tr", {}, el("td", {}, words(spot)), el("td", {}, `${lo} – ${hi}`)))));
}

function cap(text) {
  return text ? text.charAt(0).toUpperCase() + text.slice(1) : "";
}

function onFrame(f) {
  if (f.topic === "state") {
    if (!f.retained && f.payload && typeof f.payload.at === "number") noteClock(f.payload.at);
    state = f.payload;
    render();
  } else if (f.topic === "events" && state && f.payload && f.payload.event === "card") {
    if (!f.retained) noteClock(f.payload.at);
    const d = f.payload.data || {};
    const cards = state.cards || [];
    const index = d.index || cards.filter((c) => c.position === d.position).length + 1;
    if (!cards.some((c) => c.position === d.position && c.index === index)) {
      state = { ...state, cards: [...cards, { position: d.position, index, face: d.face, card: d.card }] };
      render();
    }
  } else if (f.topic === "events" && f.payload && f.payload.event === "round_ended") {
    window.__rounds = (window.__rounds || 0) + 1;
  }
}

link = new Link({
  table,
  onFrame,
  onGateway: (g) => {
    link.last = g;
    render();
  },
  onHistory: (h) => {
    history = h;
    render();
  },
  onSocket: (what) => {
    if (what === "closed" && link) {
      link.last = { gateway: "broker-down" };
      render();
    }
  },
});

// history grows from the states' last rounds
const seen = new Set();
const base = onFrame;
link.handlers.onFrame = (f) => {
  if (f.topic === "state" && f.payload && f.payload.last_round) {
    const r = f.payload.last_round;
    if (!seen.has(r.round_id) && !history.some((h) => h.round_id === r.round_id)) {
      seen.add(r.round_id);
      history = [...history, r].slice(-12);
    }
  }
  base(f);
};

// the timer ticks in the browser
setInterval(() => {
  const t = document.querySelector("[data-timer]");
  if (!t || !state || !state.timers || !state.timers[0]) return;
  t.replaceWith(timerView(state));
}, 100);

render();
