// The seat view: one player's own cards, bets, balance, decisions (buttons enabled by the
// seat state's options), results and personal history, after a login as that seat. The
// server's link for this page is logged in as the seat's own broker user and subscribes to
// that seat's topics only: the page never receives another seat's data.
import { cardElement } from "/static/cards.js";
import {
  cardsBy, el, handTitle, Link, login, noteClock, PHASES, secondsLeft, lightFor, statusWords, tableId,
} from "/static/common.js";
import { handView, layoutOf } from "/static/hands.js";

const table = tableId();
const app = document.getElementById("app");
const STUDIO = new Set(["texas-holdem-bonus", "ultimate-texas-holdem", "casino-holdem"]);
let me = null; // {seat, user}
let link = null;
let pub = null; // the public state
let mine = null; // this seat's state
let notes = []; // replies and refusals, newest first
let history = []; // this seat's settlements, newest first
let amount = {};
let chosenHand = null;

async function start() {
  const r = await fetch(`/session?role=seat`, { credentials: "same-origin" });
  if (r.ok) {
    me = await r.json();
    if (me.table !== table) me = null;
  }
  if (!me) return showLogin();
  connect();
}

function showLogin(error = null) {
  const form = el("form", { class: "login", id: "login" },
    el("h2", {}, `Table ${table}: log in as a seat`),
    el("label", {}, "Seat", el("input", { name: "seat", id: "seat", required: true, maxlength: 16, inputmode: "numeric", placeholder: "3" })),
    el("label", {}, "Password", el("input", { name: "password", id: "password", type: "password", required: true, maxlength: 256 })),
    error ? el("div", { class: "error", id: "login-error" }, error) : null,
    el("button", { class: "primary", type: "submit", id: "login-button" }, "Log in"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const seat = form.seat.value.trim();
    const answer = await login({ role: "seat", table, seat, password: form.password.value });
    if (!answer.ok) return showLogin(answer.error);
    me = answer;
    connect();
  });
  app.replaceChildren(el("header", { class: "topbar" }, el("div", { class: "brand" }, "tablectl"), el("div", { class: "where" }, `Table ${table}`)), form);
}

function connect() {
  link = new Link({
    table,
    role: "seat",
    onFrame,
    onGateway: (g) => {
      if (g.link === "public") link.public = g;
      else link.own = g;
      render();
    },
    onSent: () => {},
    onRefused: (text) => note(false, text),
    onSocket: (what) => {
      if (what === "closed") {
        link.public = { gateway: "broker-down" };
        render();
      }
    },
  });
  render();
}

function note(ok, text) {
  notes = [{ ok, text, at: new Date() }, ...notes].slice(0, 4);
  render();
}

function onFrame(f) {
  const p = f.payload;
  if (!f.retained && p && typeof p.at === "number") noteClock(p.at);
  if (f.topic === "state") pub = p;
  else if (f.topic === `seat/${me.seat}/state`) mine = p;
  else if (f.topic === `seat/${me.seat}/reply`) {
    note(p.ok, p.ok ? `${p.command.replace("_", " ")}: done` : `${p.command.replace("_", " ")}: ${p.reason}`);
    return;
  } else if (f.topic === `seat/${me.seat}/events` && p.event === "settled") {
    history = [{ round: (mine && mine.round_id) || "", ...p.data }, ...history].slice(0, 20);
  } else if (f.topic === "events" && pub && p.event === "card") {
    const d = p.data || {};
    const cards = pub.cards || [];
    const index = cards.filter((c) => c.position === d.position).length + 1;
    pub = { ...pub, cards: [...cards, { position: d.position, index, face: d.face, card: d.card }] };
  } else return;
  render();
}

function send(command) {
  const ref = link.send(command);
  if (ref === null) note(false, "not connected: the command was not sent; try again in a moment");
}

function hands() {
  const set = new Set();
  for (const s of (mine && mine.stakes) || []) set.add(s.hand);
  if (set.size === 0) {
    if (pub && STUDIO.has(pub.game)) set.add("player");
    else for (const h of (pub && pub.hands_in_play) || []) set.add(h);
    if (set.size === 0) for (let i = 1; i <= 7; i++) set.add(`box ${i}`);
  }
  return [...set];
}

function render() {
  if (!me) return;
  const [cls, words] = statusWords(link && link.public, pub);
  const own = link && link.own && link.own.gateway !== "connected"
    ? el("div", { class: "error" }, `Your link: ${link.own.gateway} ${link.own.reason || ""}`) : null;
  const header = el("header", { class: "topbar" },
    el("div", { class: "brand" }, pub ? pub.title : "tablectl"),
    el("div", { class: "where" }, `Table ${table} · Seat ${me.seat}`),
    el("div", { class: `status ${cls}`, "data-status": cls }, words),
    el("button", { id: "logout", onclick: async () => {
      await fetch("/logout?role=seat", { method: "POST", credentials: "same-origin" });
      location.reload();
    } }, "Log out"));
  const phase = (mine && mine.phase) || (pub && pub.phase) || "connecting";
  const myBy = cardsBy(mine && mine.cards);
  const myHands = hands();
  const lay = pub ? layoutOf(pub) : { ended: false, dealer: { cards: [] }, board: [], hands: [] };
  const shown = lay.hands.filter((h) => myHands.includes(h.hand)).map((h) =>
    myBy[h.hand] && !lay.ended ? { ...h, cards: myBy[h.hand].map((c) => c.card) } : h);
  for (const h of myHands) {
    if (!lay.ended && myBy[h] && !shown.some((x) => x.hand === h)) shown.push({ hand: h, cards: myBy[h].map((c) => c.card) });
  }
  const felt = el("section", { class: `felt${lay.ended ? " ended" : ""}` },
    el("div", { class: "phase", "data-phase": phase }, PHASES[phase] || phase,
      lay.ended ? el("span", { class: "round" }, " · last round's results") : null),
    el("div", { class: "row dealer-row" }, handView("dealer", lay.dealer.cards, { title: "Dealer", name: lay.dealer.name })),
    el("div", { class: "row board-row" }, handView("board", lay.board, { title: "Board" })),
    el("div", { class: "row players" }, shown.map((h) => handView(h.hand, h.cards, { ...h, title: `${handTitle(h.hand)} · yours` }))),
    pub && pub.next && !lay.ended ? el("div", { class: "next" }, pub.next) : null);
  const side = el("aside", { class: "side" }, timerView(), moneyView(), betView(myHands, phase), decideView(), notesView(), historyView());
  app.replaceChildren(...[header, own, el("div", { class: "body" }, felt, side)].filter(Boolean));
}

function timerView() {
  const timer = pub && pub.timers && pub.timers[0];
  if (!timer) return el("div", { class: "timer idle", "data-timer": "", "data-light": "off" }, el("div", { class: "lamps" }, ["red", "yellow", "green"].map((c) => el("span", { class: `lamp ${c}` }))), el("div", { class: "seconds" }, "–"), el("div", { class: "timer-name" }, "No timer running"));
  const left = secondsLeft(timer);
  const light = lightFor(left, timer.yellow_seconds ?? 1);
  return el("div", { class: `timer ${light}`, "data-timer": Math.ceil(left), "data-light": light },
    el("div", { class: "lamps" }, ["red", "yellow", "green"].map((c) => el("span", { class: `lamp ${c}${c === light ? " on" : ""}` }))),
    el("div", { class: "seconds" }, `${Math.ceil(left)}`),
    el("div", { class: "timer-name" }, timer.name === "betting" ? "Betting closes" : "Decide"));
}

function moneyView() {
  const stakes = (mine && mine.stakes) || [];
  return el("div", { class: "seat-panel money-panel" },
    el("h2", {}, "Your money"),
    el("div", { class: "money" },
      el("span", {}, "Balance ", el("b", { "data-balance": mine ? mine.balance : "" }, mine && mine.balance !== null ? mine.balance : "chips on the felt"))),
    stakes.length === 0 ? el("p", { class: "muted" }, "No bets this round") :
      el("table", { class: "bets" }, stakes.map((s) => el("tr", { "data-stake": s.hand },
        el("td", {}, handTitle(s.hand)),
        el("td", {}, Object.entries(s.bets).map(([spot, v]) => `${spot} ${v}`).join(" · ")),
        el("td", { class: "muted" }, s.decisions.join(", "))))));
}

function betView(myHands, phase) {
  const open = phase === "betting";
  const spots = Object.entries((pub && pub.limits) || {});
  if (!chosenHand || !myHands.includes(chosenHand)) chosenHand = myHands[0];
  return el("div", { class: "seat-panel" },
    el("h2", {}, "Bets"),
    myHands.length > 1 ? el("select", { id: "hand", onchange: (e) => { chosenHand = e.target.value; } },
      myHands.map((h) => el("option", { value: h, selected: h === chosenHand }, handTitle(h)))) : null,
    el("div", { class: "buttons" }, spots.map(([spot, [lo, hi]]) => {
      const value = amount[spot] || lo;
      return el("span", { class: "bet" },
        el("input", { type: "number", min: lo, max: hi, step: "any", value, size: 5, "data-amount": spot, onchange: (e) => { amount[spot] = e.target.value; } }),
        el("button", { "data-command": "place_bet", "data-spot": spot, disabled: !open,
          onclick: () => send({ command: "place_bet", hand: chosenHand, spot, amount: String(amount[spot] || lo) }) }, `Bet ${spot.replace("_", " ")}`));
    })),
    el("div", { class: "buttons" },
      ["undo_bet", "clear_bets", "rebet"].map((c) => el("button", { "data-command": c, disabled: !open,
        onclick: () => send({ command: c, hand: chosenHand }) }, c.replace("_", " ")))));
}

function decideView() {
  const stakes = ((mine && mine.stakes) || []).filter((s) => s.options.length > 0);
  if (stakes.length === 0) return null;
  return el("div", { class: "seat-panel decide" },
    el("h2", {}, "Your decision"),
    stakes.map((s) => el("div", { class: "buttons", "data-hand": `${s.hand} decisions` },
      s.options.map((o) => el("button", { class: "primary", "data-command": "decide", "data-option": o,
        onclick: () => send({ command: "decide", hand: s.hand, option: o }) }, o.replace("_", " "))))));
}

function notesView() {
  if (notes.length === 0) return null;
  return el("div", { class: "seat-panel" }, notes.map((n) => el("div", { class: n.ok ? "notice" : "error", "data-reply": n.ok ? "ok" : "refused" }, n.text)));
}

function historyView() {
  const settled = (mine && mine.settlements) || [];
  const rows = history.length ? history : settled;
  return el("div", { class: "history settlement" },
    el("h2", {}, "Your results"),
    rows.length === 0 ? el("p", { class: "muted" }, "No settled round yet") :
      el("table", {}, rows.slice(0, 8).map((s) => el("tr", { "data-settled": s.hand },
        el("td", {}, handTitle(s.hand)),
        el("td", {}, s.folded ? "folded" : (s.player_hand && s.player_hand.name) || ""),
        el("td", {}, (s.lines || []).map((l) => `${l.spot} ${l.result}${l.odds ? ` ${l.odds}` : ""}`).join(" · ")),
        el("td", { class: Number(s.net) > 0 ? "win" : "" }, `net ${s.net}`)))));
}

setInterval(() => {
  const t = document.querySelector("[data-timer]");
  if (t && pub && pub.timers && pub.timers[0]) t.replaceWith(timerView());
}, 100);

start();
