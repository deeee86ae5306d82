"""Hand evaluation: exact tables, an independent evaluator, properties, names, qualifiers."""

import itertools
import random
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cards import STANDARD_52, STRIPPED_28, Card, Suit, parse_cards
from controller.errors import InvalidHand, UnknownName
from controller.hands import (
    Category,
    Qualifier,
    Ranking,
    category_of,
    count_categories,
    evaluate,
    reference_strength,
    strength,
    strength_batch,
    winners,
)

# REFERENCE.md, exact hand counts (independent truths: never derived from our code)
SEVEN_OF_52 = {
    Category.ROYAL_FLUSH: 4_324,
    Category.STRAIGHT_FLUSH: 37_260,
    Category.FOUR_OF_A_KIND: 224_848,
    Category.FULL_HOUSE: 3_473_184,
    Category.FLUSH: 4_047_644,
    Category.STRAIGHT: 6_180_020,
    Category.THREE_OF_A_KIND: 6_461_620,
    Category.TWO_PAIR: 31_433_400,
    Category.PAIR: 58_627_800,
    Category.HIGH_CARD: 23_294_460,
}
FIVE_OF_52 = {
    Category.ROYAL_FLUSH: 4,
    Category.STRAIGHT_FLUSH: 36,
    Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3_744,
    Category.FLUSH: 5_108,
    Category.STRAIGHT: 10_200,
    Category.THREE_OF_A_KIND: 54_912,
    Category.TWO_PAIR: 123_552,
    Category.PAIR: 1_098_240,
    Category.HIGH_CARD: 1_302_540,
}
FIVE_OF_28 = {
    Category.ROYAL_FLUSH: 4,
    Category.STRAIGHT_FLUSH: 8,
    Category.FLUSH: 72,
    Category.FOUR_OF_A_KIND: 168,
    Category.FULL_HOUSE: 1_008,
    Category.STRAIGHT: 3_060,
    Category.THREE_OF_A_KIND: 6_720,
    Category.TWO_PAIR: 15_120,
    Category.PAIR: 53_760,
    Category.HIGH_CARD: 18_360,
}


def hand(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


# ---------------------------------------------------------------- exact tables


def test_five_card_table_of_the_standard_deck() -> None:
    assert count_categories(5) == FIVE_OF_52
    assert sum(FIVE_OF_52.values()) == comb(52, 5)


@pytest.mark.parametrize("ranking", list(Ranking))
def test_five_card_table_of_the_28_card_deck(ranking: Ranking) -> None:
    assert count_categories(5, STRIPPED_28, ranking) == FIVE_OF_28


def test_seven_card_table_by_the_enumerating_kernel() -> None:
    # the fast form: the enumerator walks all C(52,7) hands in about a second
    counts = count_categories(7)
    assert counts == SEVEN_OF_52
    assert sum(counts.values()) == comb(52, 7)
    # REFERENCE.md: the dealer has a pair or better 82.588% of the time from 7 cards
    assert 1 - counts[Category.HIGH_CARD] / comb(52, 7) == pytest.approx(0.82588, abs=5e-6)


def test_triple_action_ranking_keeps_the_category_order_of_counts() -> None:
    order = list(count_categories(5, STRIPPED_28, Ranking.TRIPLE_ACTION))
    assert order == list(Ranking.TRIPLE_ACTION.categories) == list(FIVE_OF_28)


@pytest.mark.parametrize("ranking", list(Ranking))
def test_kernel_equals_reference_on_every_five_card_hand_of_the_28_card_deck(
    ranking: Ranking,
) -> None:
    hands = list(itertools.combinations(STRIPPED_28.cards, 5))
    fast = strength_batch(np.array(hands, dtype=np.uint8), ranking)
    slow = [reference_strength(h, ranking) for h in hands]
    assert fast.tolist() == slow


@pytest.mark.full
def test_kernel_equals_reference_on_every_five_card_hand_of_the_standard_deck() -> None:
    hands = np.array(list(itertools.combinations(range(52), 5)), dtype=np.uint8)
    fast = strength_batch(hands).tolist()
    for row, value in zip(hands.tolist(), fast, strict=True):
        assert reference_strength([Card(c) for c in row]) == value, row


@pytest.mark.full
def test_seven_card_table_through_the_batch_evaluator() -> None:
    # a second code path: every C(52,7) hand built in numpy and evaluated in batches.
    # All 5-card combinations in lexicographic order: those above card m form a suffix.
    fives = np.array(list(itertools.combinations(range(52), 5)), dtype=np.uint8)
    suffix = {m: int(np.searchsorted(fives[:, 0], m)) for m in range(53)}
    totals = np.zeros(10, dtype=np.int64)
    for a, b in itertools.combinations(range(52), 2):
        rest = fives[suffix[b + 1] :]
        if len(rest) == 0:
            continue
        rows = np.empty((len(rest), 7), dtype=np.uint8)
        rows[:, 0], rows[:, 1], rows[:, 2:] = a, b, rest
        totals += np.bincount(strength_batch(rows) >> 26, minlength=10)
    assert int(totals.sum()) == comb(52, 7)
    counts = {category_of(level << 26): int(n) for level, n in enumerate(totals)}
    assert counts == SEVEN_OF_52


# ---------------------------------------------------------------- independent evaluators


def _random_hands(n: int, k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    keys = rng.random((n, 52), dtype=np.float32)
    return np.argpartition(keys, k, axis=1)[:, :k].astype(np.uint8)


def _same_order(ours: np.ndarray, theirs: np.ndarray) -> None:
    """Assert that two scorings (higher = better) order the hands identically, ties included."""
    order = np.lexsort((theirs, ours))
    a, b = ours[order].astype(np.int64), theirs[order].astype(np.int64)
    da, db = np.diff(a), np.diff(b)
    assert (db >= 0).all(), "the other evaluator ranks a hand lower that we rank higher"
    assert ((da > 0) == (db > 0)).all(), "the evaluators disagree on which hands tie"


def _eval7_scores(rows: np.ndarray) -> np.ndarray:
    eval7 = pytest.importorskip("eval7")
    cards = [eval7.Card(Card(i).code[0] + Card(i).code[1].lower()) for i in range(52)]
    evaluate7 = eval7.evaluate
    return np.fromiter(
        (evaluate7([cards[c] for c in row]) for row in rows.tolist()),
        dtype=np.int64,
        count=len(rows),
    )


def test_same_order_as_eval7_on_a_million_random_seven_card_hands() -> None:
    rows = _random_hands(1_000_000, 7, seed=20261122)
    _same_order(strength_batch(rows).astype(np.int64), _eval7_scores(rows))


@pytest.mark.full
def test_same_order_as_eval7_on_ten_million_random_seven_card_hands() -> None:
    for seed in range(10):
        rows = _random_hands(1_000_000, 7, seed=seed)
        _same_order(strength_batch(rows).astype(np.int64), _eval7_scores(rows))


def test_same_order_as_treys_on_random_five_six_and_seven_card_hands() -> None:
    treys = pytest.importorskip("treys")
    evaluator = treys.Evaluator()
    codes = [treys.Card.new(Card(i).code[0] + Card(i).code[1].lower()) for i in range(52)]
    for k in (5, 6, 7):
        rows = _random_hands(20_000, k, seed=k)
        theirs = np.array(
            [
                -evaluator.evaluate([codes[c] for c in r[:2]], [codes[c] for c in r[2:]])
                for r in rows.tolist()
            ]
        )
        _same_order(strength_batch(rows).astype(np.int64), theirs)


# ---------------------------------------------------------------- properties

seven_cards = st.lists(st.integers(0, 51), min_size=5, max_size=7, unique=True)


@settings(max_examples=400, deadline=None)
@given(seven_cards, st.sampled_from(list(Ranking)))
def test_kernel_equals_the_reference(cards: list[int], ranking: Ranking) -> None:
    assert strength(cards, ranking) == reference_strength([Card(c) for c in cards], ranking)


@settings(max_examples=300, deadline=None)
@given(seven_cards, st.randoms(use_true_random=False), st.sampled_from(list(Ranking)))
def test_order_of_cards_never_matters(
    cards: list[int], rnd: random.Random, ranking: Ranking
) -> None:
    shuffled = list(cards)
    rnd.shuffle(shuffled)
    assert strength(shuffled, ranking) == strength(cards, ranking)


@settings(max_examples=300, deadline=None)
@given(seven_cards, st.permutations(list(Suit)))
def test_relabelling_suits_never_matters_for_the_standard_ranking(
    cards: list[int], suits: list[Suit]
) -> None:
    relabelled = [Card.of(Card(c).rank, suits[Card(c).suit]) for c in cards]
    assert strength(relabelled) == strength(cards)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True),
    st.sampled_from(list(Ranking)),
)
def test_a_sixth_or_seventh_card_never_lowers_the_hand(cards: list[int], ranking: Ranking) -> None:
    five, six, seven = (strength(cards[:n], ranking) for n in (5, 6, 7))
    assert five <= six <= seven


@settings(max_examples=200, deadline=None)
@given(seven_cards, st.sampled_from(list(Ranking)))
def test_best_five_is_five_of_the_cards_and_makes_the_hand(
    cards: list[int], ranking: Ranking
) -> None:
    value = evaluate([Card(c) for c in cards], ranking)
    assert len(value.best_five) == 5 and set(value.best_five) <= set(value.cards)
    assert strength(value.best_five, ranking) == value.strength
    assert category_of(value.strength, ranking) is value.category


# ---------------------------------------------------------------- rules and names


@pytest.mark.parametrize(
    ("cards", "category", "name"),
    [
        ("AS KS QS JS TS", Category.ROYAL_FLUSH, "royal flush"),
        ("9H TH JH QH KH", Category.STRAIGHT_FLUSH, "straight flush, king high"),
        ("AD 2D 3D 4D 5D", Category.STRAIGHT_FLUSH, "straight flush, five high"),
        ("7C 7D 7H 7S 2C", Category.FOUR_OF_A_KIND, "four of a kind, sevens"),
        ("KS KD KH 5C 5D", Category.FULL_HOUSE, "full house, kings over fives"),
        ("2S 5S AS 7S KS", Category.FLUSH, "flush, ace"),
        ("4H 5D 6C 7S 8H", Category.STRAIGHT, "straight, eight high"),
        ("AC 2D 3H 4S 5C", Category.STRAIGHT, "straight, five high"),
        ("9S 9D 9H AC 8D", Category.THREE_OF_A_KIND, "three of a kind, nines"),
        ("4S 4D 9H 9C 8D", Category.TWO_PAIR, "two pair, nines and fours"),
        ("4S 4D AH KC 8D", Category.PAIR, "pair of fours"),
        ("2S KD 9H 6C 3D", Category.HIGH_CARD, "high card, king"),
    ],
)
def test_categories_and_names(cards: str, category: Category, name: str) -> None:
    value = evaluate(hand(cards))
    assert value.category is category and value.name == name


def test_seed_000_examples() -> None:
    # "a Flush with an Ace-high beats a Flush with a King-high"
    assert evaluate(hand("AH 9H 7H 5H 3H")).beats(evaluate(hand("KS QS JS 9S 7S")))
    # "the highest card not held in common will be used"
    assert evaluate(hand("AH KD 9C 5S 3H")).beats(evaluate(hand("AS KC 8D 5H 3D")))
    # "The suit order of the cards is not used to determine the winner."
    assert winners([evaluate(hand("AH KD 9C 5S 3H")), evaluate(hand("AS KC 9D 5H 3D"))]) == [0, 1]


def test_seed_001_unused_cards_never_count() -> None:
    board = "AS KD 9C 7H 5S"
    # both play the board: the two hole cards below the board's five never count
    a, b = evaluate(hand(f"{board} 2C 3D")), evaluate(hand(f"{board} 4C 3H"))
    assert a.strength == b.strength and a.best_five == b.best_five


def test_wheel_is_the_lowest_straight_and_only_where_the_ace_plays_low() -> None:
    wheel, six_high = evaluate(hand("AC 2D 3H 4S 5C")), evaluate(hand("2D 3H 4S 5C 6D"))
    assert six_high.beats(wheel)
    assert [c.code for c in wheel.best_five] == ["5C", "4S", "3H", "2D", "AC"]
    assert evaluate(hand("AC 2D 3H 4S 5C"), Ranking.TRIPLE_ACTION).category is Category.HIGH_CARD


def test_triple_action_ranking() -> None:
    ta = Ranking.TRIPLE_ACTION
    flush = evaluate(hand("8S 9S JS QS AS"), ta)
    quads = evaluate(hand("AC AD AH AS KS"), ta)
    full = evaluate(hand("AC AD AH KS KD"), ta)
    assert flush.beats(quads) and quads.beats(full)
    assert flush.category is Category.FLUSH
    # DESIGN.md: ace high only: 8-9-T-J-Q is the lowest straight, A-8-9-T-J is no straight
    assert evaluate(hand("8C 9D TH JS QC"), ta).category is Category.STRAIGHT
    assert evaluate(hand("AC 8D 9H TS JC"), ta).category is Category.HIGH_CARD
    assert evaluate(hand("TC JD QH KS AC"), ta).name == "straight, ace high"
    # the standard ranking keeps quads above a flush
    assert evaluate(hand("AC AD AH AS KS")).beats(evaluate(hand("8S 9S JS QS AS")))


def test_qualifiers() -> None:
    fours = Qualifier.parse("pair of fours or better")
    assert not fours.holds(evaluate(hand("3S 3D AH KC QD")))
    assert fours.holds(evaluate(hand("4S 4D 2H 3C 6D")))
    assert fours.holds(evaluate(hand("2S 2D 3H 3C 6D")))  # two pair beats any pair
    assert not fours.holds(evaluate(hand("AS KD QH JC 9D")))
    nines = Qualifier.parse("Pair of Nines or better")
    assert not nines.holds(evaluate(hand("8S 8D AH KC QD"), Ranking.TRIPLE_ACTION))
    assert nines.holds(evaluate(hand("9S 9D 8H TC QD"), Ranking.TRIPLE_ACTION))
    any_pair = Qualifier.parse("pair or better")
    assert any_pair.holds(evaluate(hand("2S 2D 3H 4C 6D")))
    assert any_pair.describe() == "pair or better" and nines.describe() == "pair of nines or better"
    with pytest.raises(UnknownName, match="pair of fours or better"):
        Qualifier.parse("a decent hand")
    with pytest.raises(UnknownName, match="take a rank"):
        Qualifier.parse("flush of aces or better")


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ([0, 1, 2, 3], "5 to 7 cards; got 4"),
        (list(range(8)), "5 to 7 cards; got 8"),
        ([0, 1, 2, 3, 3], "card 2S appears twice"),
        ([0, 1, 2, 3, 52], "card number 52 is not a card"),
        ([0, 1, 2, 3, -1], "card number -1 is not a card"),
    ],
)
def test_bad_hands_are_refused_with_what_arrived(cards: list[int], message: str) -> None:
    with pytest.raises(InvalidHand, match=message):
        strength(cards)


def test_batch_refusals_name_the_row() -> None:
    rows = _random_hands(10, 7, seed=1)
    rows[6, 3] = rows[6, 0]
    with pytest.raises(InvalidHand, match=r"hand 6 holds card \w\w twice"):
        strength_batch(rows)
    rows[6, 3] = 60
    with pytest.raises(InvalidHand, match="hand 6 holds card number 60"):
        strength_batch(rows)
    with pytest.raises(InvalidHand, match="5 to 7 cards"):
        strength_batch(np.zeros((3, 4), dtype=np.uint8))
    with pytest.raises(InvalidHand, match="2-D"):
        strength_batch(np.zeros(7, dtype=np.uint8))
    with pytest.raises(UnknownName, match="unknown ranking 5"):
        strength([0, 1, 2, 3, 5], 5)


def test_winners_and_ties() -> None:
    values = [evaluate(hand(h)) for h in ("AS AD 2C 3D 7H", "AH AC 2D 3S 7C", "KS KD 2H 3C 7D")]
    assert winners(values) == [0, 1] and winners([]) == []


def test_count_categories_refuses_bad_sizes_and_reports_progress() -> None:
    seen: list[tuple[int, int]] = []
    count_categories(5, STRIPPED_28, progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (comb(28, 5), comb(28, 5))
    assert all(a[0] <= b[0] for a, b in itertools.pairwise(seen))
    with pytest.raises(InvalidHand):
        count_categories(4)
    assert len(STANDARD_52) == 52
