// A hand on the layout: its title, its cards (backs for face-down), its name, result, fold.
import { cardElement } from "/static/cards.js";
import { el, handTitle } from "/static/common.js";

/** A hand: data-hand, its cards (backs for face-down), its name, result and fold. */
export function handView(hand, cards, { name = null, result = null, folded = false, title } = {}) {
  return el(
    "div",
    { class: `hand${folded ? " folded" : ""}`, "data-hand": hand, "data-folded": folded ? "true" : null },
    el("div", { class: "hand-title" }, title || handTitle(hand)),
    el("div", { class: "cards" }, cards.map((c) => cardElement(c))),
    el("div", { class: "hand-name" }, folded ? "Folded" : name || "\u00a0"),
    result ? el("div", { class: `result ${result}`, "data-result": result }, RESULT[result] || result) : null,
  );
}

export const RESULT = { win: "Wins", lose: "Loses", push: "Push" };

