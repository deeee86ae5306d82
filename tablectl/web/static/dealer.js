// The dealer console: what is due next ("card to box 3"), the round's layout, a button for
// every dealer command (enabled by the table's `can` in the dealer state), a halt with the
// answers the rules allow, the payments due with their amounts, the hardware's status.
// The server's link for this page is logged in as the dealer's own broker user.
import { cardsBy, el, handTitle, heard, Link, login, noteClock, PHASES, statusWords, tableId, update, words } from "/static/common.js";
import { handView } from "/static/hands.js";

const table = tableId();
const app = document.getElementById("app");
let link = null;
let mine = null; // the dealer state
let pub = null; // the public state (names, timers)
let log = []; // events and replies in words, newest first

/** The buttons of the dealer's commands that need no choice: name, words, what it asks. */
const BUTTONS = [
  ["start_round", "Start round"],
  ["no_more_bets", "No more bets"],
  ["reveal_done", "Cards revealed"],
  ["halt", "Halt", "reason", "Why do you halt the table?"],
  ["resume", "Resume", "note", "What did you check?"],
  ["restore_sequence", "Restore the sequence", "cards", null],
  ["redeal", "Redeal", "reason", "Why are the cards dealt again?"],
  ["dealer_exposed_early", "My card was exposed"],
];

async function start() {
  const r = await fetch("/session?role=dealer", { credentials: "same-origin" });
  let me = r.ok ? await r.json() : null;
  if (me && me.table !== table) me = null;
  if (!me) return showLogin();
  connect();
}

function showLogin(error = null) {
  const form = el("form", { class: "login", id: "login" },
    el("h2", {}, `Table ${table}: dealer console`),
    el("label", {}, "User", el("input", { name: "user", id: "user", value: "dealer", maxlength: 16 })),
    el("label", {}, "Password", el("input", { name: "password", id: "password", type: "password", required: true, maxlength: 256 })),
    error ? el("div", { class: "error", id: "login-error" }, error) : null,
    el("button", { class: "primary", type: "submit", id: "login-button" }, "Log in"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const answer = await login({ role: "dealer", table, user: form.user.value.trim() || "dealer", password: form.password.value });
    if (!answer.ok) return showLogin(answer.error);
    connect();
  });
  app.replaceChildren(el("header", { class: "topbar" }, el("div", { class: "brand" }, "tablectl"), el("div", { class: "where" }, `Table ${table}`)), form);
}

function connect() {
  link = new Link({
    table,
    role: "dealer",
    onFrame,
    onGateway: (g) => {
      if (g.link === "public") link.public = g;
      else link.own = g;
      render();
    },
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
  log = [{ ok, text, at: new Date().toLocaleTimeString() }, ...log].slice(0, 30);
  render();
}

function onFrame(f) {
  const p = f.payload;
  if (!f.retained && p && typeof p.at === "number") noteClock(p.at);
  if (f.topic === "dealer/state") {
    mine = p;
    window.__dealerState = p;
  } else if (f.topic === "state") pub = p;
  else if (f.topic === "dealer/reply") {
    const words = p.command.replaceAll("_", " ");
    return note(p.ok, p.ok ? `${words}: done` : `${words}: refused: ${p.reason}`);
  } else if (f.topic === "dealer/events") {
    const said = eventWords(p.event, p.data || {});
    if (said) return note(p.event !== "halted" && p.event !== "alert", said);
    return;
  } else return;
  render();
}

function eventWords(kind, d) {
  switch (kind) {
    case "card": return `card ${d.card || "(face down)"} to ${d.position}`;
    case "decision": return `${d.seat} on ${d.hand}: ${words(d.option)}${d.automatic ? " (automatic: the timer ran out)" : ""}`;
    case "halted": return `HALTED by ${d.by || "?"}: ${d.reason}`;
    case "resumed": return `resumed by ${d.by}${d.note ? `: ${d.note}` : ""}`;
    case "alert": return `alert: ${d.message}`;
    case "payment": return `payment on ${d.hand} for ${d.seat}: ${d.status || ""} ${d.paid || ""}`.trim();
    case "round_ended": return `round ${d.round_id} ended: ${d.outcome}`;
    case "redeal": return `redeal: ${d.reason || ""}`;
    case "settled": {
      const lines = (d.lines || []).map((l) => `${words(l.spot)} ${l.result}${l.result === "win" ? ` ${l.odds || ""} paid ${l.paid}` : ""}`);
      return `settled ${d.seat} on ${d.hand}: ${lines.join(", ")}; net ${d.net}`;
    }
    default: return null;
  }
}

function send(command) {
  const ref = link && link.send(command);
  if (!ref) note(false, "not connected: the command was not sent; try again in a moment");
}

function press(name, field, question) {
  const command = { command: name };
  if (field === "cards") {
    const input = document.getElementById("restore-cards");
    command.cards = input ? input.value.trim() : "";
  } else if (field) {
    const input = document.getElementById(`why-${name}`);
    command[field] = (input && input.value.trim()) || question.replace(/\?$/, "");
  }
  send(command);
}

// The page's regions: built once; the inputs and the command buttons stay (a dealer typing
// a reason or a bet keeps his place), the rest is drawn again on every state.
const ui = {};

function skeleton() {
  ui.header = el("header", { class: "topbar" });
  ui.own = el("div", {});
  ui.felt = el("section", { class: "felt" });
  ui.halt = el("section", { class: "region" });
  ui.payments = el("section", { class: "region" });
  ui.decisions = el("section", { class: "region" });
  ui.hardware = el("section", { class: "region" });
  ui.log = el("section", { class: "region" });
  ui.buttons = {};
  ui.inputs = {};
  ui.commands = el("div", { class: "panel" }, el("h2", {}, "Commands"),
    el("div", { class: "buttons" }, BUTTONS.filter(([name]) => name !== "restore_sequence").map(([name, words, field, question]) => {
      const input = field ? el("input", { id: `why-${name}`, placeholder: question, size: 14, "aria-label": question }) : null;
      const button = el("button", { "data-command": name, disabled: true, onclick: () => press(name, field, question || "") }, words);
      ui.buttons[name] = button;
      return el("span", {}, input, button);
    })));
  ui.answers = {};
  ui.restore = el("input", { id: "restore-cards", size: 40 });
  ui.haltReason = el("div", { class: "reason" });
  ui.haltBy = el("div", { class: "muted" });
  ui.haltNone = el("div", { class: "muted" }, "Only the pit manager can answer this halt.");
  ui.haltPanel = el("div", { class: "panel halt" },
    el("h2", {}, "Halted"), ui.haltReason, ui.haltBy,
    el("label", {}, "Cards in deal order (for a restore)", ui.restore),
    el("div", { class: "buttons" }, [["resume", "Resume", "note"], ["restore_sequence", "Restore the sequence", "cards"], ["redeal", "Redeal", "reason"]].map(([name, words, field]) => {
      const button = el("button", { class: "primary", "data-answer": name, disabled: true, onclick: () => press(name, field, words) }, words);
      ui.answers[name] = button;
      return button;
    })), ui.haltNone);
  ui.betHand = el("select", { id: "bet-hand" });
  ui.betSpot = el("select", { id: "bet-spot" });
  ui.betSeat = el("input", { id: "bet-seat", placeholder: "player", size: 8 });
  ui.betAmount = el("input", { id: "bet-amount", type: "number", min: 0, step: "any", size: 6 });
  const form = el("form", { class: "inline", id: "bet-form" }, ui.betHand, ui.betSeat, ui.betSpot, ui.betAmount,
    el("button", { type: "submit", "data-command": "place_bet" }, "Enter bet"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    send({ command: "place_bet", hand: ui.betHand.value, seat: ui.betSeat.value.trim(), spot: ui.betSpot.value, amount: String(ui.betAmount.value) });
  });
  ui.bet = el("div", { class: "panel", hidden: true }, el("h2", {}, "Bets on the felt"), form);
  app.replaceChildren(ui.header, ui.own, el("div", { class: "body" }, ui.felt,
    el("aside", { class: "side" }, ui.halt, ui.commands, ui.payments, ui.bet, ui.decisions, ui.hardware, ui.log)));
}

function options(select, values) {
  const now = [...select.options].map((o) => o.value);
  if (now.join("|") === values.join("|")) return;
  const kept = select.value;
  select.replaceChildren(...values.map((v) => el("option", { value: v }, handTitle(v))));
  if (values.includes(kept)) select.value = kept;
}

function render() {
  if (!link) return;
  if (!ui.header) skeleton();
  const [cls, words] = statusWords(link.public, pub);
  const phase = mine ? mine.phase : "connecting";
  update(ui.header, [
    el("div", { class: "brand" }, pub ? pub.title : "tablectl"),
    el("div", { class: "where" }, `Table ${table} · Dealer`),
    el("div", { class: `status ${cls}`, "data-status": cls }, words),
    el("button", { id: "logout", onclick: async () => {
      await fetch("/logout?role=dealer", { method: "POST", credentials: "same-origin" });
      location.reload();
    } }, "Log out")]);
  update(ui.own, [link.own && link.own.gateway !== "connected"
    ? el("div", { class: "error" }, `Console link: ${link.own.gateway} ${link.own.reason || ""}`) : ""]);
  update(ui.felt, [
    el("div", { class: "phase", "data-phase": phase }, PHASES[phase] || phase,
      mine && mine.round_id ? el("span", { class: "round" }, ` ${mine.round_id}`) : null),
    el("div", { class: "next-due", "data-next": mine ? mine.next : "" }, mine ? nextWords(mine) : "Connecting…"),
    layoutView()]);
  const live = heard(link.public); // nothing is offered to a table that is not heard
  const can = (live && mine && mine.can) || {};
  for (const [name, button] of Object.entries(ui.buttons)) button.disabled = !can[name];
  haltView(can);
  update(ui.payments, [paymentsView(live)]);
  ui.bet.hidden = phase !== "betting" || !live;
  const hands = (pub && pub.hands_in_play && pub.hands_in_play.length) ? pub.hands_in_play : [...Array(7)].map((_, i) => `box ${i + 1}`);
  options(ui.betHand, hands);
  options(ui.betSpot, Object.keys((pub && pub.limits) || { ante: 0 }));
  update(ui.decisions, [decisionsView(live)]);
  update(ui.hardware, [hardwareView()]);
  update(ui.log, [logView()]);
}

function nextWords(state) {
  if (state.phase === "halted") return "Halted: answer the halt";
  return state.next ? state.next.charAt(0).toUpperCase() + state.next.slice(1) : "";
}

function layoutView() {
  if (!mine) return null;
  const by = cardsBy(mine.cards);
  const names = (pub && pub.names) || {};
  const folded = (pub && pub.folded) || [];
  const hands = new Set([...Object.keys(by), ...mine.stakes.map((s) => s.hand)]);
  hands.delete("dealer");
  hands.delete("board");
  const stakes = el("table", { class: "grid stakes" },
    el("tr", {}, el("th", {}, "Hand"), el("th", {}, "Seat"), el("th", {}, "Bets"), el("th", {}, "Decisions")),
    mine.stakes.map((s) => el("tr", { "data-stake": `${s.hand}|${s.seat}` },
      el("td", {}, handTitle(s.hand) + (s.dark ? " (dark)" : "")), el("td", {}, s.seat),
      el("td", {}, Object.entries(s.bets).map(([k, v]) => `${words(k)} ${v}`).join(" · ")),
      el("td", {}, s.decisions.map(words).join(", ") || (s.options.length ? "deciding" : "")))));
  return el("div", {},
    el("div", { class: "row dealer-row" }, handView("dealer", (by.dealer || []).map((c) => c.card), { title: "Dealer", name: names.dealer })),
    by.board ? el("div", { class: "row board-row" }, handView("board", by.board.map((c) => c.card), { title: "Board" })) : null,
    el("div", { class: "row players" }, [...hands].map((h) => handView(h, (by[h] || []).map((c) => c.card), {
      name: names[h], folded: folded.includes(h),
      title: mine.next_position === h ? `${handTitle(h)} ← next card` : handTitle(h),
    }))),
    mine.stakes.length ? stakes : null);
}

function haltView(can) {
  if (!mine || mine.phase !== "halted") {
    ui.halt.replaceChildren();
    return;
  }
  if (!ui.halt.contains(ui.haltPanel)) {
    ui.restore.value = (mine.cards || []).map((c) => `${c.position}:${c.card || "??"}`).join(" ");
    ui.halt.replaceChildren(ui.haltPanel);
  }
  ui.haltPanel.setAttribute("data-halt", mine.halted_by || "?");
  ui.haltReason.textContent = mine.halt_reason || "(no reason given)";
  ui.haltBy.textContent = `Stopped by ${mine.halted_by || "?"}. The answers the rules allow now:`;
  for (const [name, button] of Object.entries(ui.answers)) button.disabled = !can[name];
  ui.haltNone.hidden = Object.values(can).some(Boolean);
}

function paymentsView(live) {
  const due = (mine && mine.payments_due) || [];
  if (!due.length) return null;
  return el("div", { class: "panel" },
    el("h2", {}, "Payments due"),
    el("table", { class: "grid" }, due.map((p) => el("tr", { "data-payment": `${p.hand}|${p.seat}` },
      el("td", {}, handTitle(p.hand)), el("td", {}, p.seat), el("td", {}, el("b", {}, p.amount)),
      el("td", {}, el("button", { "data-command": "confirm_payment", "data-amount": p.amount, disabled: !live,
        onclick: () => send({ command: "confirm_payment", hand: p.hand, seat: p.seat, paid: p.amount }) }, `Paid ${p.amount}`))))));
}

function decisionsView(live) {
  const deciding = ((mine && mine.stakes) || []).filter((s) => s.options.length);
  if (!deciding.length) return null;
  return el("div", { class: "panel" },
    el("h2", {}, "Decisions due"),
    deciding.map((s) => el("div", { class: "buttons", "data-hand": `${s.hand} decisions` },
      el("span", {}, `${handTitle(s.hand)} (${s.seat})`),
      s.options.map((o) => el("button", { "data-command": "decide", "data-option": o, disabled: !live,
        onclick: () => send({ command: "decide", hand: s.hand, seat: s.seat, option: o }) }, o.replaceAll("_", " "))))));
}

function hardwareView() {
  const hw = (mine && mine.hardware) || {};
  const rows = [["this console", link.own ? link.own.gateway : "connecting"]];
  for (const [part, status] of Object.entries(hw)) rows.push([part, status]);
  return el("div", { class: "panel" }, el("h2", {}, "Hardware"),
    el("table", { class: "grid" }, rows.map(([part, status]) => el("tr", { "data-hardware": part },
      el("td", {}, part), el("td", {}, statusOf(status))))));
}

/** A part's status in words: connected or not, then its counts and timings. */
function statusOf(value) {
  if (value === null || value === undefined) return "–";
  if (typeof value !== "object") return String(value);
  const out = [];
  if ("connected" in value) out.push(value.connected ? "connected" : "NOT CONNECTED");
  if (value.enabled === false) out.push("switched off");
  for (const key of ["frames", "errors", "reconnects", "dropped", "read_ms", "write_ms", "slowest_ms", "rows"]) {
    if (typeof value[key] === "number") out.push(`${key.replace("_ms", "").replaceAll("_", " ")} ${value[key]}${key.endsWith("_ms") ? " ms" : ""}`);
  }
  if (typeof value.error === "string" && value.error) out.push(value.error);
  return out.join(" · ") || "–";
}

function logView() {
  return el("div", { class: "panel" }, el("h2", {}, "Events"),
    el("div", { class: "log" }, log.map((n) => el("div", { class: n.ok ? "" : "bad", "data-reply": "" }, `${n.at} ${n.text}`))));
}

start();
