/* The scoreboard's plain view (screen "table"): what `state` says of the table (round, phase,
 * the player-dealer and the rotation, the button) and the side-bet hits of the rounds the page
 * saw (`round/result`), newest first. The view of a game that brings none of its own, and the
 * fallback while a game's own view is not loaded. docs/scoreboard.md. */
(function (global) {
  "use strict";

  const { $, el } = global.TablectlDraw;

  // The side bets of each game, as their spots are named in `round/result.settlements`.
  const SIDE_BETS = {
    dragon7: "Dragon 7", panda8: "Panda 8", "pair-plus": "Pair Plus",
    "six-card-bonus": "6 Card Bonus", fortune: "Fortune", envy: "Envy", trips: "Trips",
    "bad-beat": "Bad Beat", "red-flex": "Red Flex", buster: "Buster Blackjack",
    "match-dealer": "Match the Dealer",
  };

  const MARKUP = `
  <section class="panel" id="other-table">
    <h2>The table</h2>
    <dl id="other-facts"></dl>
  </section>
  <section class="panel" id="other-hits">
    <h2>Recent side-bet hits</h2>
    <ol id="hits"></ol>
  </section>`;

  /** The side-bet wins of the rounds seen, newest first: <li> elements, at most `most`. */
  function sideBetHits(results, most) {
    const hits = [];
    for (const r of results.slice().reverse()) {
      for (const s of r.settlements || []) {
        if (SIDE_BETS[s.spot] && (s.status === "win" || s.status === "partial")) {
          hits.push(el("li", { "data-round": r.round, "data-seat": s.seat, "data-spot": s.spot,
            "data-net": s.net }, `Round ${r.round}: seat ${s.seat} ${SIDE_BETS[s.spot]} +${s.net}`));
        }
      }
    }
    return hits.slice(0, most);
  }

  function tableFacts(st) {
    const facts = [["Round", st.round], ["Phase", st.phase]];
    const pd = st.player_dealer;
    if (pd) {
      const bank = pd.bank ? `, bank ${pd.bank}` : "";
      const turn = pd.turn ? ` (hand ${pd.turn} of 2)` : "";
      facts.push(["Player-dealer", `seat ${pd.seat}${bank}${turn}`]);
    } else if ("player_dealer" in st) facts.push(["Player-dealer", "no bank posted"]);
    if (st.bank_offer_seat) facts.push(["Bank offered to", `seat ${st.bank_offer_seat}`]);
    if (st.button_seat) facts.push(["Button", `seat ${st.button_seat}`]);
    if (st.total_action) facts.push(["Total action", st.total_action]);
    return facts;
  }

  global.TablectlViews.table = {
    SIDE_BETS,
    sideBetHits,
    mount(root) { root.innerHTML = MARKUP; },
    render(root, ctx) {
      const st = ctx.sb.state;
      const facts = st ? tableFacts(st) : [];
      $("other-facts").replaceChildren(...facts.flatMap(([k, v]) =>
        [el("dt", {}, k), el("dd", { "data-fact": k }, v)]));
      $("hits").replaceChildren(...sideBetHits(ctx.sb.results, 12));
    },
  };
})(window);
