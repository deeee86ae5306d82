// The index: every table the server hears, with links to its pages (refreshed every 2 s).
import { el, PHASES } from "/static/common.js";

const PAGES = [
  ["player", "Player display"],
  ["overlay", "Stream overlay"],
  ["seat", "Seat"],
  ["dealer", "Dealer console"],
];

let shown = null; // the list drawn last: drawn again only when it changed (a redraw swallows a click)

async function refresh() {
  let doc = { tables: [] };
  try {
    doc = await (await fetch("/api/tables")).json();
  } catch (_) {
    /* the server restarts: try again */
  }
  const text = JSON.stringify(doc.tables);
  if (text === shown) return;
  shown = text;
  const body = document.querySelector("#tables tbody");
  body.replaceChildren(
    ...doc.tables.map((t) =>
      el(
        "tr",
        { "data-table": t.table },
        el("td", {}, el("strong", {}, t.table)),
        el("td", {}, t.title || t.game || ""),
        el("td", {}, el("span", { class: `badge ${t.status}` }, t.status)),
        el("td", {}, PHASES[t.phase] || t.phase || ""),
        el(
          "td",
          { class: "links" },
          PAGES.map(([p, words]) =>
            el("a", { href: `/table/${encodeURIComponent(t.table)}/${p}` }, words),
          ),
          el("a", { href: "/pit" }, "Pit"),
        ),
      ),
    ),
  );
  document.getElementById("none").hidden = doc.tables.length > 0;
}

refresh();
setInterval(refresh, 2000);
