// The index: every table the server hears, with links to its pages (refreshed every 2 s).
import { el, PHASES, update } from "/static/common.js";

const PAGES = [
  ["player", "Player display"],
  ["overlay", "Stream overlay"],
  ["seat", "Seat"],
  ["dealer", "Dealer console"],
];

async function refresh() {
  let doc = { tables: [] };
  try {
    doc = await (await fetch("/api/tables")).json();
  } catch (_) {
    /* the server restarts: try again */
  }
  const body = document.querySelector("#tables tbody");
  // only the rows that changed are drawn again: a redraw would swallow a click on a link
  update(
    body,
    doc.tables.map((t) =>
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
