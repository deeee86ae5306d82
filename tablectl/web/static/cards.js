// Playing cards drawn as SVG by the project: faces with rank and suit indices, pips for
// 2-10, a framed court letter for J, Q, K, one large pip for the ace; backs for face-down
// cards. cardSvg(code | null) returns the SVG text; cardElement(code | null) an element
// carrying the test hook data-card="AS" (or "back").

const W = 250;
const H = 350;
const RED = "#c1121f";
const BLACK = "#161616";
const SUITS = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const RANKS = {
  A: "ace", K: "king", Q: "queen", J: "jack", T: "10",
  9: "9", 8: "8", 7: "7", 6: "6", 5: "5", 4: "4", 3: "3", 2: "2",
};

// each suit in a 100 x 100 box
const SHAPES = {
  H: '<path d="M50 92C22 68 2 50 2 28 2 12 14 2 28 2c10 0 18 6 22 15C54 8 62 2 72 2c14 0 26 10 26 26 0 22-20 40-48 64z"/>',
  D: '<path d="M50 2 90 50 50 98 10 50z"/>',
  S: '<path d="M50 2C32 26 4 40 4 62c0 15 11 25 24 25 9 0 16-4 19-10-1 10-6 17-15 21h36c-9-4-14-11-15-21 3 6 10 10 19 10 13 0 24-10 24-25C96 40 68 26 50 2z"/>',
  C: '<circle cx="50" cy="27" r="21"/><circle cx="26" cy="58" r="21"/><circle cx="74" cy="58" r="21"/><path d="M45 52c0 22-4 34-14 46h38c-10-12-14-24-14-46z"/>',
};

function pip(suit, x, y, size, flip = false) {
  const s = size / 100;
  const rot = flip ? ` rotate(180 50 50)` : "";
  return `<g transform="translate(${x - size / 2} ${y - size / 2}) scale(${s})${rot}">${SHAPES[suit]}</g>`;
}

// pip centres (x, y, flipped) for ranks 2-10
const L = 72, C = 125, R = 178;
const PIPS = {
  2: [[C, 72], [C, 278, 1]],
  3: [[C, 72], [C, 175], [C, 278, 1]],
  4: [[L, 72], [R, 72], [L, 278, 1], [R, 278, 1]],
  5: [[L, 72], [R, 72], [C, 175], [L, 278, 1], [R, 278, 1]],
  6: [[L, 72], [R, 72], [L, 175], [R, 175], [L, 278, 1], [R, 278, 1]],
  7: [[L, 72], [R, 72], [C, 123], [L, 175], [R, 175], [L, 278, 1], [R, 278, 1]],
  8: [[L, 72], [R, 72], [C, 123], [L, 175], [R, 175], [C, 227, 1], [L, 278, 1], [R, 278, 1]],
  9: [[L, 72], [R, 72], [L, 140], [R, 140], [C, 175], [L, 210, 1], [R, 210, 1], [L, 278, 1], [R, 278, 1]],
  10: [[L, 72], [R, 72], [C, 106], [L, 140], [R, 140], [L, 210, 1], [R, 210, 1], [C, 244, 1], [L, 278, 1], [R, 278, 1]],
};

const cache = new Map();

function face(code) {
  const rank = code[0];
  const suit = code[1];
  const colour = suit === "H" || suit === "D" ? RED : BLACK;
  const label = rank === "T" ? "10" : rank;
  const font = "Georgia,'DejaVu Serif',serif";
  const index = (flip) =>
    `<g${flip ? ` transform="rotate(180 ${W / 2} ${H / 2})"` : ""}>` +
    `<text x="27" y="52" font-family="${font}" font-size="${label.length > 1 ? 38 : 44}" ` +
    `font-weight="700" text-anchor="middle" letter-spacing="-3">${label}</text>` +
    pip(suit, 27, 76, 30) +
    `</g>`;
  let middle = "";
  if (rank === "A") {
    middle = pip(suit, C, 175, suit === "D" ? 110 : 120);
  } else if ("KQJ".includes(rank)) {
    middle =
      `<rect x="52" y="44" width="146" height="262" rx="10" fill="#f6ecd0" stroke="${colour}" stroke-width="4"/>` +
      `<rect x="60" y="52" width="130" height="246" rx="6" fill="none" stroke="#c9a227" stroke-width="3"/>` +
      `<text x="${C}" y="214" font-family="${font}" font-size="120" font-weight="700" ` +
      `text-anchor="middle">${rank}</text>` +
      pip(suit, 80, 74, 30) +
      pip(suit, 170, 276, 30, true);
  } else {
    middle = PIPS[label].map(([x, y, f]) => pip(suit, x, y, 48, !!f)).join("");
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" role="img" ` +
    `aria-label="${RANKS[rank]} of ${SUITS[suit]}">` +
    `<rect x="2" y="2" width="${W - 4}" height="${H - 4}" rx="18" fill="#fffdf8" stroke="#9a9a9a" stroke-width="3"/>` +
    `<g fill="${colour}">${index(false)}${index(true)}${middle}</g></svg>`
  );
}

function back() {
  let lattice = "";
  for (let i = -H; i < W + H; i += 22) {
    lattice += `M${i} 0L${i + H} ${H}M${i + H} 0L${i} ${H}`;
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" role="img" aria-label="face-down card">` +
    `<rect x="2" y="2" width="${W - 4}" height="${H - 4}" rx="18" fill="#fffdf8" stroke="#9a9a9a" stroke-width="3"/>` +
    `<rect x="16" y="16" width="${W - 32}" height="${H - 32}" rx="10" fill="#7b1020"/>` +
    `<svg x="16" y="16" width="${W - 32}" height="${H - 32}" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none">` +
    `<path d="${lattice}" stroke="#a8323f" stroke-width="5" fill="none"/></svg>` +
    `<rect x="26" y="26" width="${W - 52}" height="${H - 52}" rx="8" fill="none" stroke="#d4af37" stroke-width="4"/>` +
    `<circle cx="${W / 2}" cy="${H / 2}" r="44" fill="#7b1020" stroke="#d4af37" stroke-width="4"/>` +
    `<g fill="#d4af37">${pip("S", W / 2, H / 2, 40)}</g></svg>`
  );
}

const VALID = /^[2-9TJQKA][CDHS]$/;

/** The SVG text of a card: a face for a code such as "AS" or "TD", a back for null. */
export function cardSvg(code) {
  const key = code && VALID.test(code) ? code : "back";
  let svg = cache.get(key);
  if (svg === undefined) {
    svg = key === "back" ? back() : face(key);
    cache.set(key, svg);
  }
  return svg;
}

/** A card element (class "card", data-card="AS" or "back"). */
export function cardElement(code) {
  const node = document.createElement("div");
  const key = code && VALID.test(code) ? code : "back";
  node.className = "card";
  node.dataset.card = key;
  node.innerHTML = cardSvg(code);
  return node;
}
