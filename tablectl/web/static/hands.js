// A hand on the layout: its title, its cards (backs for face-down), its name, result, fold.
import { cardElement } from "/static/cards.js";
import { cardsBy, el, handTitle, words } from "/static/common.js";

/** A hand: data-hand, its cards (backs for face-down), its name, result and fold. */
export function handView(hand, cards, { name = null, result = null, folded = false, title, payouts = [] } = {}) {
  return el(
    "div",
    { class: `hand${folded ? " folded" : ""}`, "data-hand": hand, "data-folded": folded ? "true" : null },
    el("div", { class: "hand-title" }, title || handTitle(hand)),
    el("div", { class: "cards" }, cards.map((c) => cardElement(c))),
    el("div", { class: "hand-name" }, folded ? "Folded" : name || "\u00a0"),
    result ? el("div", { class: `result ${result}`, "data-result": result }, RESULT[result] || result) : null,
    payouts.length ? el("div", { class: "payouts", "data-payouts": hand }, payouts.map(payoutWords).join(" · ")) : null,
  );
}

/** "ante pays 1:1", "blind push", "call loses". */
export function payoutWords(p) {
  const spot = words(p.spot);
  if (p.result === "win") return p.odds ? `${spot} pays ${p.odds}` : `${spot} wins`;
  return `${spot} ${p.result === "lose" ? "loses" : p.result}`;
}

export const RESULT = { win: "Wins", lose: "Loses", push: "Push" };


/** What the layout shows: the round in play, or between rounds the last one as it ended. */
export function layoutOf(s) {
  // in play: the state's cards; between rounds: the last round as it ended
  const by = cardsBy(s.cards);
  const last = s.last_round;
  // until the next round's first card the last round's layout stays up, with its results
  const between = (s.cards || []).length === 0 && s.phase !== "dealing";
  if (between && last && last.dealer) {
    return {
      ended: true,
      dealer: { cards: last.dealer.cards, name: last.dealer.name },
      board: last.board,
      hands: last.hands.map((h) => ({
        hand: h.hand, cards: h.cards, name: h.name, result: h.result, folded: h.folded,
        payouts: h.payouts || [],
      })),
    };
  }
  const names = s.names || {};
  const folded = new Set(s.folded || []);
  const hands = (s.hands_in_play || []).map((h) => ({
    hand: h,
    cards: (by[h] || []).map((c) => c.card),
    name: names[h] || null,
    folded: folded.has(h),
  }));
  for (const pos of Object.keys(by)) {
    if (pos !== "dealer" && pos !== "board" && !(s.hands_in_play || []).includes(pos)) {
      hands.push({ hand: pos, cards: by[pos].map((c) => c.card), name: names[pos] || null });
    }
  }
  return {
    ended: false,
    dealer: { cards: (by.dealer || []).map((c) => c.card), name: names.dealer || null },
    board: (by.board || []).map((c) => c.card),
    hands,
  };
}

