// The pit console: every table at a glance (its pit state), the alerts and halts to resolve
// with the answers the rules allow (enabled by the table's `can`), and the round history with
// the dispute replay: a round step by step (every card with its source, every decision,
// automatic ones included, every halt and ruling), the layout at each step, and the round
// exported as a scenario file. The server's link is logged in as the pit's own broker user.
import { cardsBy, el, handTitle, heard, Link, login, noteClock, PHASES, statusWords, update, words } from "/static/common.js";
import { handView } from "/static/hands.js";

const app = document.getElementById("app");
const MAX_TABLES = 7; // one socket each (a login holds at most 8)
const tables = {}; // id -> {link, state, alerts: [], replies: []}
let journals = [];
let selected = null;
let history = { table: null, rounds: [], error: null };
let dispute = null; // {table, round_id, steps, at}

async function start() {
  const r = await fetch("/session?role=pit", { credentials: "same-origin" });
  if (!r.ok) return showLogin();
  await boot();
}

function showLogin(error = null) {
  const form = el("form", { class: "login", id: "login" },
    el("h2", {}, "Pit console"),
    el("label", {}, "Your name", el("input", { name: "by", id: "by", required: true, maxlength: 40 })),
    el("label", {}, "User", el("input", { name: "user", id: "user", value: "pit", maxlength: 16 })),
    el("label", {}, "Password", el("input", { name: "password", id: "password", type: "password", required: true, maxlength: 256 })),
    error ? el("div", { class: "error", id: "login-error" }, error) : null,
    el("button", { class: "primary", type: "submit", id: "login-button" }, "Log in"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const answer = await login({ role: "pit", by: form.by.value.trim(), user: form.user.value.trim() || "pit", password: form.password.value });
    if (!answer.ok) return showLogin(answer.error);
    await boot();
  });
  app.replaceChildren(el("header", { class: "topbar" }, el("div", { class: "brand" }, "tablectl")), form);
}

async function boot() {
  try {
    journals = (await (await fetch("/api/pit/tables", { credentials: "same-origin" })).json()).journals || [];
  } catch (_) {
    journals = [];
  }
  await refreshTables();
  setInterval(refreshTables, 3000);
  render();
}

async function refreshTables() {
  let listed = [];
  try {
    listed = (await (await fetch("/api/tables")).json()).tables.map((t) => t.table);
  } catch (_) {
    /* the server restarts: next time */
  }
  let added = false;
  for (const id of [...new Set([...listed, ...journals])].slice(0, MAX_TABLES)) {
    if (tables[id]) continue;
    added = true;
    tables[id] = { state: null, alerts: [], replies: [], link: null, public: null };
    tables[id].link = new Link({
      table: id,
      role: "pit",
      onFrame: (f) => onFrame(id, f),
      onRefused: (text) => note(id, false, text),
      // the table's own status (online, offline: a table stopped or its process gone
      // shows its last state, so the pit must be told it is no longer live)
      onGateway: (g) => {
        if (g.link === "public") {
          tables[id].public = g;
          render();
        }
      },
      onSocket: (what) => {
        if (what === "closed") {
          tables[id].public = { gateway: "broker-down" };
          render();
        }
      },
    });
    if (!selected) selected = id;
  }
  // drawn again only for a new table: a page drawn again every few seconds for nothing
  // would swallow a click pressed while it is redrawn
  if (added) render();
}

function note(id, ok, text) {
  const t = tables[id];
  t.replies = [{ ok, text, at: new Date().toLocaleTimeString() }, ...t.replies].slice(0, 12);
  render();
}

function onFrame(id, f) {
  const t = tables[id];
  const p = f.payload;
  if (!f.retained && p && typeof p.at === "number") noteClock(p.at);
  if (f.topic === "pit/state") {
    const ended = t.state && t.state.round_id && t.state.round_id !== p.round_id;
    t.state = p;
    if (ended && history.table === id && journals.includes(id)) loadHistory(id); // a round ended
    window.__pitStates = { ...(window.__pitStates || {}), [id]: p };
  } else if (f.topic === "pit/alerts") {
    const d = p.data || {};
    t.alerts = [{ kind: p.event, text: d.message || d.reason || JSON.stringify(d), at: new Date().toLocaleTimeString() }, ...t.alerts].slice(0, 20);
  } else if (f.topic === "pit/reply") {
    const words = p.command.replaceAll("_", " ");
    return note(id, p.ok, p.ok ? `${words}: done` : `${words}: refused: ${p.reason}`);
  } else return;
  render();
}

function send(id, command) {
  const ref = tables[id].link.send(command);
  if (!ref) note(id, false, "not connected: the command was not sent; try again in a moment");
}

const typed = {}; // what was typed in the inputs, kept across redraws

/** A text input that keeps what was typed (and the focus) when the page is drawn again. */
function input(id, placeholder, size) {
  return el("input", { id, placeholder, size, value: typed[id] || "", oninput: (e) => { typed[id] = e.target.value; } });
}

function render() {
  const active = document.activeElement && document.activeElement.id;
  draw();
  const again = active && document.getElementById(active);
  if (again && again.tagName === "INPUT") {
    again.focus();
    const end = again.value.length;
    again.setSelectionRange(end, end);
  }
}

function draw() {
  const header = el("header", { class: "topbar" },
    el("div", { class: "brand" }, "tablectl"),
    el("div", { class: "where" }, "Pit"),
    el("button", { id: "logout", onclick: async () => {
      await fetch("/logout?role=pit", { method: "POST", credentials: "same-origin" });
      location.reload();
    } }, "Log out"));
  const grid = el("section", { class: "tables", id: "tables" }, Object.entries(tables).map(([id, t]) => {
    const s = t.state;
    const phase = s ? s.phase : "connecting";
    const cls = statusWords(t.public, null)[0];
    return el("div", { class: `table-card${id === selected ? " selected" : ""}${phase === "halted" ? " halted" : ""}`,
      "data-table": id, onclick: () => { selected = id; render(); } },
      el("strong", {}, `Table ${id}`),
      cls === "online" ? null : el("span", { class: `status ${cls}`, "data-status": cls }, cardStatus(t.public, cls)),
      s ? el("span", { "data-phase": phase }, PHASES[phase] || phase) : null,
      s && s.round_id ? el("span", { class: "round-id" }, s.round_id) : null,
      s ? el("span", { class: "muted" }, s.next) : null,
      t.alerts.length ? el("span", { class: "bad" }, `${t.alerts.length} alert(s)`) : null);
  }));
  // only what changed is drawn again (common.js's update): a message of one table does
  // not redraw the panel of another that the pit manager is clicking in
  update(app, [header, grid, selected ? el("div", { class: "body" },
    el("section", { class: "felt" }, disputeView() || liveView()),
    el("aside", { class: "side" }, haltView(), commandsView(), alertsView(), historyView())) : el("p", { class: "waiting" }, "No table yet")]);
}

/** A table's status in a word or two, for its card among the others. */
function cardStatus(link, cls) {
  if (cls !== "offline") return "Connecting…";
  return link && link.status === "unheard" ? "Not heard from" : "Offline";
}

function liveView() {
  const t = tables[selected];
  const s = t.state;
  const [cls, said] = statusWords(t.public, null);
  const banner = cls === "online" ? null : el("div", { class: `status ${cls}`, "data-status": cls },
    s ? `${said}: the last state it sent is shown` : said);
  if (!s) return el("div", {}, banner, el("p", { class: "waiting" }, "Waiting for the table…"));
  return el("div", {}, banner,
    layout({ phase: s.phase, next: s.next, round_id: s.round_id, positions: positions(s.cards), stakes: s.stakes }));
}

function positions(cards) {
  const by = cardsBy(cards);
  const out = {};
  for (const [p, list] of Object.entries(by)) out[p] = list.map((c) => c.card);
  return out;
}

function layout(doc) {
  const pos = doc.positions || {};
  const hands = Object.keys(pos).filter((p) => p !== "dealer" && p !== "board");
  return el("div", { class: "layout" },
    el("div", { class: "phase", "data-phase": doc.phase }, PHASES[doc.phase] || doc.phase,
      doc.round_id ? el("span", { class: "round" }, ` ${doc.round_id}`) : null),
    el("div", { class: "next-due" }, doc.next || ""),
    doc.halt_reason ? el("div", { class: "bad" }, `Halted: ${doc.halt_reason}`) : null,
    el("div", { class: "row dealer-row" }, handView("dealer", pos.dealer || [], { title: "Dealer" })),
    (pos.board || []).length ? el("div", { class: "row board-row" }, handView("board", pos.board, { title: "Board" })) : null,
    el("div", { class: "row players" }, hands.map((h) => handView(h, pos[h] || []))),
    (doc.stakes || []).length ? el("table", { class: "grid stakes" },
      el("tr", {}, el("th", {}, "Hand"), el("th", {}, "Seat"), el("th", {}, "Bets"), el("th", {}, "Decisions")),
      doc.stakes.map((st) => el("tr", { "data-stake": `${st.hand}|${st.seat}` },
        el("td", {}, handTitle(st.hand)), el("td", {}, st.seat),
        el("td", {}, Object.entries(st.bets).map(([k, v]) => `${words(k)} ${v}`).join(" · ")),
        el("td", {}, (st.decisions || []).map(words).join(", "))))) : null);
}

/** What the selected table allows now: its state's `can`, nothing while it is not heard. */
function allowed() {
  const t = tables[selected];
  return t.state && heard(t.public) ? t.state.can || {} : {};
}

function haltView() {
  const s = tables[selected].state;
  if (!s || s.phase !== "halted") return null;
  const can = allowed();
  const answers = [
    ["resume", "Resume", () => ({ command: "resume", note: value("pit-note") || "checked by the pit" })],
    ["redeal", "Redeal", () => ({ command: "redeal", reason: value("pit-note") || "redeal ordered by the pit" })],
    ["void_round", "Void the round", () => ({ command: "void_round", reason: value("pit-note") || "voided by the pit" })],
    ["rule_return", "Rule: return undecided", () => ({ command: "resolve_undecided", ruling: "return" })],
    ["rule_fold", "Rule: fold undecided", () => ({ command: "resolve_undecided", ruling: "fold" })],
  ];
  return el("div", { class: "panel halt", "data-halt": s.halted_by || "?" },
    el("h2", {}, `Halted · table ${selected}`),
    el("div", { class: "reason" }, s.halt_reason || "(no reason given)"),
    el("div", { class: "muted" }, `Stopped by ${s.halted_by || "?"}`),
    input("pit-note", "note or reason", 30),
    el("div", { class: "buttons" }, answers.map(([name, words, make]) =>
      el("button", { class: "primary", "data-answer": name, disabled: !can[name], onclick: () => send(selected, make()) }, words))),
    correctView());
}

/** A misread card corrected by the pit manager: which card, what it is, why. */
function correctView() {
  return el("div", { class: "buttons", id: "correct" },
    input("correct-position", "box 1", 7), input("correct-index", "card no.", 5),
    input("correct-card", "AS", 4), input("correct-reason", "why", 14),
    el("button", { "data-command": "correct_card", onclick: () => send(selected, {
      command: "correct_card", position: value("correct-position"), index: Number(value("correct-index")),
      card: value("correct-card"), reason: value("correct-reason") || "corrected by the pit" }) }, "Correct the card"));
}

function value(id) {
  const node = document.getElementById(id);
  return node ? node.value.trim() : "";
}

function commandsView() {
  const s = tables[selected].state;
  const can = allowed();
  const buttons = [
    ["open_table", "Open table", () => ({ command: "open_table" })],
    ["close_table", "Close table", () => ({ command: "close_table" })],
    ["void_round", "Void round", () => ({ command: "void_round", reason: value("pit-reason") || "voided by the pit" })],
  ];
  const t = tables[selected];
  return el("div", { class: "panel" }, el("h2", {}, `Table ${selected}`),
    input("pit-reason", "reason (void)", 24),
    el("div", { class: "buttons" }, buttons.map(([name, words, make]) =>
      el("button", { "data-command": name, disabled: !can[name], onclick: () => send(selected, make()) }, words))),
    el("div", { class: "buttons" }, input("deck-id", "new deck id", 12),
      el("button", { "data-command": "change_deck", disabled: !heard(tables[selected].public) || !s || s.phase !== "idle",
        onclick: () => send(selected, { command: "change_deck", deck_id: value("deck-id") }) }, "Change deck")),
    el("div", { class: "log" }, t.replies.map((n) => el("div", { class: n.ok ? "" : "bad", "data-reply": "" }, `${n.at} ${n.text}`))));
}

function alertsView() {
  const t = tables[selected];
  return el("div", { class: "panel" }, el("h2", {}, "Alerts"),
    t.alerts.length ? el("div", { class: "log" }, t.alerts.map((a) => el("div", { class: "bad", "data-alert": a.kind }, `${a.at} ${a.text}`)))
      : el("div", { class: "muted" }, "None"));
}

function historyView() {
  if (!journals.includes(selected)) {
    return el("div", { class: "panel" }, el("h2", {}, "History"),
      el("div", { class: "muted" }, `No journal of table ${selected} was given to the server (tablectl web --journal ${selected}=PATH).`));
  }
  if (history.table !== selected) loadHistory(selected);
  return el("div", { class: "panel history" }, el("h2", {}, "History"),
    el("button", { id: "history-refresh", onclick: () => loadHistory(selected) }, "Refresh"),
    history.error ? el("div", { class: "bad" }, history.error) : null,
    el("ol", { class: "rounds", id: "rounds" }, [...history.rounds].reverse().map((r) =>
      el("li", { "data-round": r.round_id, class: dispute && dispute.round_id === r.round_id ? "selected" : "",
        onclick: () => openRound(selected, r.round_id) },
        el("span", { class: "round-id" }, r.round_id),
        el("span", {}, `${r.outcome} · staked ${r.staked} · returned ${r.returned}${r.redeal_of ? ` · redeal of ${r.redeal_of}` : ""}`)))));
}

async function loadHistory(id) {
  history = { table: id, rounds: [], error: null };
  try {
    const r = await fetch(`/api/${encodeURIComponent(id)}/rounds`, { credentials: "same-origin" });
    const doc = await r.json();
    history = r.ok ? { table: id, rounds: doc.rounds, error: null } : { table: id, rounds: [], error: doc.error };
  } catch (error) {
    history = { table: id, rounds: [], error: `the server did not answer: ${error}` };
  }
  render();
}

async function openRound(id, rid) {
  const r = await fetch(`/api/${encodeURIComponent(id)}/rounds/${encodeURIComponent(rid)}`, { credentials: "same-origin" });
  const doc = await r.json();
  if (!r.ok) {
    history.error = doc.error;
    return render();
  }
  dispute = { table: id, round_id: rid, steps: doc.steps, at: 0 };
  render();
}

function disputeView() {
  if (!dispute || dispute.table !== selected) return null;
  const step = dispute.steps[dispute.at];
  const go = (to) => { dispute.at = Math.max(0, Math.min(dispute.steps.length - 1, to)); render(); };
  const scenario = `/api/${encodeURIComponent(dispute.table)}/rounds/${encodeURIComponent(dispute.round_id)}/scenario`;
  return el("div", { class: "dispute", id: "dispute", "data-round": dispute.round_id },
    el("div", { class: "buttons" },
      el("button", { id: "replay-first", onclick: () => go(0) }, "First"),
      el("button", { id: "replay-prev", disabled: dispute.at === 0, onclick: () => go(dispute.at - 1) }, "◀ Step back"),
      el("span", { "data-step": dispute.at + 1, id: "replay-where" }, `Step ${dispute.at + 1} of ${dispute.steps.length} · row ${step.row} · ${step.time}`),
      el("button", { id: "replay-next", disabled: dispute.at === dispute.steps.length - 1, onclick: () => go(dispute.at + 1) }, "Step ▶"),
      el("button", { id: "replay-last", onclick: () => go(dispute.steps.length - 1) }, "Last"),
      el("a", { id: "replay-export", href: scenario, download: `${dispute.round_id}.scn` }, "Export as a scenario file"),
      el("button", { id: "replay-close", onclick: () => { dispute = null; render(); } }, "Back to the live table")),
    el("div", { class: "steps" },
      el("div", { class: "step-text", id: "step-text" }, step.text),
      step.actions.map((a) => el("div", { "data-action": a.kind, "data-source": a.source || null, "data-automatic": a.automatic ? "true" : null }, `→ ${a.text}`))),
    layout(step.layout));
}

start();
