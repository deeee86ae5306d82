// Shared by every page: the socket to the server (reconnecting), frame dispatch, login,
// and small helpers. No build step; nothing is fetched from the internet.

/** The table id of a /table/<T>/... page (null elsewhere). */
export function tableId() {
  const m = location.pathname.match(/^\/table\/([^/]+)\//);
  return m ? decodeURIComponent(m[1]) : null;
}

/** Create an element: el("div", {class: "x", "data-hand": "box 1"}, child, "text", ...). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "html") node.innerHTML = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/**
 * Put `nodes` in `parent` as its children, keeping each child already there that is
 * drawn the same (`isEqualNode`: the same tags, attributes and text, down to its last
 * child), and going `depth` levels down into a child whose own tag and attributes are
 * the same but whose children differ. A page drawn again whole on every message would
 * swallow a click pressed while it is redrawn (the button pressed is gone when the mouse
 * is released): with this, only what changed is drawn again. A kept element keeps its old
 * listeners, so a page using this reads what a listener acts on when it is clicked, or
 * from what the element shows (its attributes and text), never from values captured
 * when it was drawn that it does not show.
 */
export function update(parent, nodes, depth = 3) {
  nodes = nodes.flat().filter((n) => n !== null && n !== undefined && n !== false && n !== "")
    .map((n) => (n instanceof Node ? n : document.createTextNode(String(n))));
  const old = [...parent.childNodes];
  const same = old.length === nodes.length && nodes.every((n, i) => sameShell(old[i], n));
  if (!same) return parent.replaceChildren(...nodes);
  nodes.forEach((n, i) => {
    if (old[i].isEqualNode(n)) return;
    if (depth > 0 && n.nodeType === Node.ELEMENT_NODE) update(old[i], [...n.childNodes], depth - 1);
    else old[i].replaceWith(n);
  });
}

/** Whether two nodes are the same kind of node with the same tag and attributes. */
function sameShell(a, b) {
  if (a.nodeType !== b.nodeType) return false;
  if (b.nodeType !== Node.ELEMENT_NODE) return a.isEqualNode(b);
  return a.cloneNode(false).isEqualNode(b.cloneNode(false));
}

/**
 * One page's socket: GET /ws?table=T[&role=R], reconnecting with back-off.
 * handlers: onFrame(frame) for topic frames ({table, topic, payload, retained}),
 * onGateway(frame) for {gateway, link, table, status, reason}, onHistory(list),
 * onSent({id, command, ref}), onRefused(text, ref), onSocket("open"|"closed").
 * Counts every frame received by topic in window.__frames (the tests read it).
 */
export class Link {
  constructor({ table, role = null, ...handlers }) {
    this.table = table;
    this.role = role;
    this.handlers = handlers;
    this.ws = null;
    this.delay = 250;
    this.refs = 0;
    this.closed = false;
    window.__frames = window.__frames || { total: 0, byTopic: {}, topics: [] };
    this.connect();
  }

  connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const q = new URLSearchParams({ table: this.table });
    if (this.role) q.set("role", this.role);
    const ws = new WebSocket(`${proto}://${location.host}/ws?${q}`);
    this.ws = ws;
    ws.onopen = () => {
      this.delay = 250;
      this.call("onSocket", "open");
    };
    ws.onmessage = (event) => this.dispatch(JSON.parse(event.data));
    ws.onclose = () => {
      this.call("onSocket", "closed");
      if (this.closed) return;
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(5000, this.delay * 2);
    };
  }

  call(name, ...args) {
    const fn = this.handlers[name];
    if (fn) fn(...args);
  }

  dispatch(frame) {
    const counts = window.__frames;
    counts.total += 1;
    if (frame.topic !== undefined) {
      counts.byTopic[frame.topic] = (counts.byTopic[frame.topic] || 0) + 1;
      if (!counts.topics.includes(frame.topic) && counts.topics.length < 200) {
        counts.topics.push(frame.topic);
      }
      this.call("onFrame", frame);
    } else if (frame.gateway !== undefined) this.call("onGateway", frame);
    else if (frame.history !== undefined) this.call("onHistory", frame.history);
    else if (frame.sent !== undefined) this.call("onSent", frame.sent);
    else if (frame.refused !== undefined) this.call("onRefused", frame.refused, frame.ref);
  }

  /** Send a command (without v, id or by: the server fills them); its ref, or null. */
  send(command) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return null;
    const ref = `r${++this.refs}`;
    this.ws.send(JSON.stringify({ command, ref }));
    return ref;
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
  }
}

/** POST /login; resolves to {ok: true, ...} or {ok: false, error}. */
export async function login(body) {
  try {
    const r = await fetch("/login", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
    });
    const doc = await r.json();
    return r.ok ? { ok: true, ...doc } : { ok: false, error: doc.error || r.statusText };
  } catch (error) {
    return { ok: false, error: `the server did not answer: ${error}` };
  }
}

/** The table's status in words, from the server's link frame and the state. */
export function statusWords(link, state) {
  if (!link || link.gateway === "connecting") return ["connecting", "Connecting to the table…"];
  if (link.gateway === "broker-down") return ["connecting", "Connecting: the studio's link is down"];
  if (link.gateway === "refused") return ["offline", `Refused: ${link.reason}`];
  if (link.status === "offline") return ["offline", "Table offline"];
  // the broker keeps no status of it: the table never ran on this studio's link
  if (link.status === "unheard") return ["offline", "Not heard from: this table has never reported on the studio's link"];
  if (link.status !== "online") return ["connecting", "Connecting to the table…"];
  // the reason of a halt is the staff's; the public state says who stopped it and what is checked
  if (state && state.halted) {
    const why = state.halt_words ? `: ${state.halt_words}` : ": the table is being checked";
    return ["halted", `Halted${why}`];
  }
  return ["online", "Live"];
}

/**
 * Whether the table is heard live through the server's link (what `statusWords` calls
 * online or halted). Its last state stays shown when it is not, but no command is offered
 * to it then: one sent to a table that is not there would go unanswered.
 */
export function heard(link) {
  return statusWords(link, null)[0] === "online";
}

/** Phase ids in words. */
export const PHASES = {
  closed: "Table closed",
  idle: "Waiting for the next round",
  betting: "Place your bets",
  dealing: "Dealing",
  deciding: "Decisions",
  reveal: "Showdown",
  settling: "Settling",
  halted: "Halted",
};

// The table's clock as this browser sees it: the smallest (browser time - message time)
// over live messages is the clocks' offset plus the shortest delivery.
let skew = null;

/** Note a live message's time (its "at", seconds since 1970 on the table's clock). */
export function noteClock(at) {
  if (typeof at !== "number") return;
  const d = Date.now() / 1000 - at;
  if (skew === null || d < skew) skew = d;
}

/** Now on the table's clock, in seconds. */
export function tableNow() {
  return Date.now() / 1000 - (skew === null ? 0 : skew);
}

/** Seconds left of a timer in the state, counted down in the browser from its deadline. */
export function secondsLeft(timer) {
  return Math.max(0, timer.deadline - tableNow());
}

/** A light for seconds left: green, yellow (the last yellowSeconds), red at zero. */
export function lightFor(left, yellowSeconds = 1) {
  if (left <= 0) return "red";
  return left <= yellowSeconds ? "yellow" : "green";
}

/** A name of the protocol in words: "ante_plus" -> "ante plus", "undo_bet" -> "undo bet". */
export function words(name) {
  return String(name).replaceAll("_", " ");
}

/** "box 1" -> "Box 1", "player" -> "Player". */
export function handTitle(hand) {
  return hand.charAt(0).toUpperCase() + hand.slice(1);
}

/** Group a state's cards by position, in index order. */
export function cardsBy(cards) {
  const by = {};
  for (const c of cards || []) (by[c.position] = by[c.position] || []).push(c);
  for (const list of Object.values(by)) list.sort((a, b) => a.index - b.index);
  return by;
}
