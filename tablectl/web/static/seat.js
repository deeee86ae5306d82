// The seat view: one player's own cards, bets, balance, the game's betting buttons (named
// as its document names them, from the public state's buttons, each enabled exactly by the
// seat state's can: the table's own answer), decisions (buttons enabled by the seat state's
// options), results and personal history, after a login as that seat. The
// server's link for this page is logged in as the seat's own broker user and subscribes to
// that seat's topics only: the page never receives another seat's data.
import { cardElement } from "/static/cards.js";
import {
  cardsBy, el, handTitle, heard, Link, login, noteClock, PHASES, secondsLeft, lightFor, statusWords, tableId, words,
} from "/static/common.js";
import { handView, layoutOf } from "/static/hands.js";

const table = tableId();
const app = document.getElementById("app");
const STUDIO = new Set(["texas-holdem-bonus", "ultimate-texas-holdem", "casino-holdem"]);
// the betting buttons of a game whose document names none (the table's own answers enable them)
const PLAIN = { rebet: "Rebet", double: "Double", undo_bet: "Undo", clear_bets: "Clear" };
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
    const what = buttonName(p.command);
    note(p.ok, p.ok ? `${what}: done` : `${what}: ${p.reason}`);
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

// each part is redrawn only when what it shows changed: a bet amount being typed keeps its focus
const keys = {};
let built = false;

function swap(slot, key, build) {
  if (keys[slot] === key) return;
  keys[slot] = key;
  const node = build() || el("div", { hidden: true });
  node.dataset.slot = slot;
  document.querySelector(`[data-slot="${slot}"]`).replaceWith(node);
}

function render() {
  if (!me) return;
  if (!built) {
    built = true;
    const side = ["timer", "money", "bet", "decide", "notes", "history"].map((s) => el("div", { "data-slot": s }));
    app.replaceChildren(el("header", { "data-slot": "header" }), el("div", { "data-slot": "own" }),
      el("div", { class: "body" }, el("section", { "data-slot": "felt" }), el("aside", { class: "side" }, side)));
  }
  const [cls, words] = statusWords(link && link.public, pub);
  const live = heard(link && link.public); // no bet nor decision offered to a table not heard
  swap("header", JSON.stringify([pub && pub.title, cls, words]), () => el("header", { class: "topbar" },
    el("div", { class: "brand" }, pub ? pub.title : "tablectl"),
    el("div", { class: "where" }, `Table ${table} · Seat ${me.seat}`),
    el("div", { class: `status ${cls}`, "data-status": cls }, words),
    el("button", { id: "logout", onclick: async () => {
      await fetch("/logout?role=seat", { method: "POST", credentials: "same-origin" });
      location.reload();
    } }, "Log out")));
  const own = link && link.own;
  swap("own", JSON.stringify(own || null), () => own && own.gateway !== "connected"
    ? el("div", { class: "error" }, `Your link: ${own.gateway} ${own.reason || ""}`) : null);
  const phase = (mine && mine.phase) || (pub && pub.phase) || "connecting";
  const myBy = cardsBy(mine && mine.cards);
  const myHands = hands();
  const lay = pub ? layoutOf(pub) : { ended: false, dealer: { cards: [] }, board: [], hands: [] };
  const shown = lay.hands.filter((h) => myHands.includes(h.hand)).map((h) =>
    myBy[h.hand] && !lay.ended ? { ...h, cards: myBy[h.hand].map((c) => c.card) } : h);
  for (const h of myHands) {
    if (!lay.ended && myBy[h] && !shown.some((x) => x.hand === h)) shown.push({ hand: h, cards: myBy[h].map((c) => c.card) });
  }
  const next = pub && pub.next && !lay.ended ? pub.next : null;
  swap("felt", JSON.stringify([lay, shown, phase, next]), () => el("section", { class: `felt${lay.ended ? " ended" : ""}` },
    el("div", { class: "phase", "data-phase": phase }, PHASES[phase] || phase,
      lay.ended ? el("span", { class: "round" }, " · last round's results") : null),
    el("div", { class: "row dealer-row" }, handView("dealer", lay.dealer.cards, { title: "Dealer", name: lay.dealer.name })),
    el("div", { class: "row board-row" }, handView("board", lay.board, { title: "Board" })),
    el("div", { class: "row players" }, shown.map((h) => handView(h.hand, h.cards, { ...h, title: `${handTitle(h.hand)} · yours` }))),
    next ? el("div", { class: "next" }, next) : null));
  tick();
  swap("money", JSON.stringify([mine && mine.balance, mine && mine.stakes]), moneyView);
  swap("bet", JSON.stringify([myHands, phase, pub && pub.limits, pub && pub.buttons, mine && mine.can, mine && mine.can_hands, chosenHand, live]), () => betView(myHands, phase, live));
  swap("decide", JSON.stringify([((mine && mine.stakes) || []).map((s) => [s.hand, s.options]), live]), () => decideView(live));
  swap("notes", JSON.stringify(notes.map((n) => [n.ok, n.text, n.at.getTime()])), notesView);
  swap("history", JSON.stringify([history, mine && mine.settlements]), historyView);
}

function tick() {
  const timer = pub && pub.timers && pub.timers[0];
  const left = timer ? secondsLeft(timer) : null;
  const key = timer ? JSON.stringify([timer.name, timer.deadline, Math.ceil(left), lightFor(left, timer.yellow_seconds ?? 1)]) : "none";
  swap("timer", key, timerView);
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
        el("td", {}, Object.entries(s.bets).map(([spot, v]) => `${words(spot)} ${v}`).join(" · ")),
        el("td", { class: "muted" }, s.decisions.map(words).join(", "))))));
}

function betView(myHands, phase, live) {
  const open = phase === "betting" && live;
  const spots = Object.entries((pub && pub.limits) || {});
  if (!chosenHand || !myHands.includes(chosenHand)) chosenHand = myHands[0];
  return el("div", { class: "seat-panel" },
    el("h2", {}, "Bets"),
    myHands.length > 1 ? el("select", { id: "hand", onchange: (e) => { chosenHand = e.target.value; render(); } },
      myHands.map((h) => el("option", { value: h, selected: h === chosenHand }, handTitle(h)))) : null,
    el("div", { class: "buttons" }, spots.map(([spot, [lo, hi]]) => {
      const value = amount[spot] || lo;
      return el("span", { class: "bet" },
        el("input", { type: "number", min: lo, max: hi, step: "any", value, size: 5, "data-amount": spot, onchange: (e) => { amount[spot] = e.target.value; } }),
        el("button", { "data-command": "place_bet", "data-spot": spot, disabled: !open,
          onclick: () => send({ command: "place_bet", hand: chosenHand, spot, amount: String(amount[spot] || lo) }) }, `Bet ${words(spot)}`));
    })),
    el("div", { class: "buttons game-buttons" }, gameButtons().map(([c, name]) => {
      const deal = c === "deal";
      return el("button", { "data-command": c, class: deal ? "primary" : "", disabled: !live || !allowed(c),
        onclick: () => send(deal ? { command: c } : { command: c, hand: chosenHand }) }, name);
    })));
}

// the game's betting buttons as [command, name], in its document's order
function gameButtons() {
  const named = Object.entries((pub && pub.buttons) || {});
  return named.length ? named : Object.entries(PLAIN);
}

function buttonName(command) {
  const named = (pub && pub.buttons) || {};
  return named[command] || words(command);
}

// whether the table would take this button now (for this hand, where the command takes one)
function allowed(command) {
  if (!mine || !(mine.can || []).includes(command)) return false;
  if (command === "deal" || !mine.can_hands) return true;
  return (mine.can_hands[chosenHand] || []).includes(command);
}

function decideView(live) {
  const stakes = ((mine && mine.stakes) || []).filter((s) => s.options.length > 0);
  if (stakes.length === 0) return null;
  return el("div", { class: "seat-panel decide" },
    el("h2", {}, "Your decision"),
    stakes.map((s) => el("div", { class: "buttons", "data-hand": `${s.hand} decisions` },
      s.options.map((o) => el("button", { class: "primary", "data-command": "decide", "data-option": o, disabled: !live,
        onclick: () => send({ command: "decide", hand: s.hand, option: o }) }, words(o))))));
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
        el("td", {}, (s.lines || []).map((l) => `${words(l.spot)} ${l.result}${l.odds ? ` ${l.odds}` : ""}`).join(" · ")),
        el("td", { class: Number(s.net) > 0 ? "win" : "" }, `net ${s.net}`)))));
}

setInterval(() => {
  if (built) tick();
}, 100);

start();
