/* The scoreboard's Chinese Poker view (screen "chinese-poker"). docs/scoreboard.md, "Chinese
 * Poker".
 *
 * The seats in a row (five at most): the number and player, the stack, the action and dealer
 * buttons' holder, who is dealt in this round and whose hand is set (set hands lie face down in
 * their three rows: the cards are not known here), who waits or sits out. Once the last hand is
 * in, the table exposes every hand and `round/result` carries them: each seat's front, middle
 * and back face up with their names, a clean sweep or a foul; then the points of each pair, each
 * payment of the walk (less than owed where a stack ran out), the fees and the stacks after.
 *
 * It draws only what `state` and `round/result` carry: no card before the showdown (docs/mqtt.md,
 * "The card-exposure rule"). */
(function (global) {
  "use strict";

  const { $, el, card } = global.TablectlDraw;

  const SWEEPS = {
    dragon: "Dragon", "six-pairs": "Six pairs", "three-straights": "Three straights",
    "three-flushes": "Three flushes",
  };
  const SEGMENTS = [["front", 3], ["middle", 5], ["back", 5]];

  const MARKUP = `
  <section class="cp-status" id="cp-status">
    <b id="cp-round"></b> <span id="cp-phase" class="cp-phase"></span>
  </section>
  <section class="cp-seats" id="cp-seats"></section>
  <section class="panel cp-result" id="cp-result">
    <h2>Points and payments (payer \u2192 payee)</h2>
    <div class="cp-lists">
      <ol class="cp-points" id="cp-points"></ol>
      <ol class="cp-payments" id="cp-payments"></ol>
    </div>
    <p class="cp-fees" id="cp-fees"></p>
  </section>`;

  const handName = (name) => (name ? name.replace(/-/g, " ") : "");

  /** Three rows of cards: face up from a shown hand's segments, or `null`s (face down). */
  function segmentRows(hand) {
    const box = el("div", { class: "cp-hand" });
    SEGMENTS.forEach(([seg, n], i) => {
      const row = el("div", { class: "cp-seg", "data-seg": seg });
      const cards = el("div", { class: "cards" });
      const list = hand ? hand[seg] : Array(n).fill(null);
      list.forEach((c) => cards.append(card(c)));
      row.append(cards);
      if (hand) row.append(el("span", { class: "cp-name" }, handName(hand.names[i])));
      box.append(row);
    });
    return box;
  }

  /** A clean sweep's thirteen cards in rows of five or fewer. */
  function sweepRows(hand) {
    const box = el("div", { class: "cp-hand", "data-sweep": hand.sweep });
    for (let i = 0; i < hand.cards.length; i += 5) {
      const cards = el("div", { class: "cards" });
      hand.cards.slice(i, i + 5).forEach((c) => cards.append(card(c)));
      const row = el("div", { class: "cp-seg" });
      row.append(cards);
      box.append(row);
    }
    return box;
  }

  function seatTile(st, s, shown, changes) {
    const rnd = st.round;
    const tile = el("div", { class: "panel cp-seat", "data-seat": s.seat });
    const head = el("div", { class: "cp-seat-head" });
    head.append(el("span", { class: "pk-seat-no" }, s.seat), el("span", { class: "pk-player" }, s.player || ""));
    if (st.button === s.seat) head.append(el("span", { class: "pk-badge button", "data-badge": "D" }, "D"));
    head.append(el("span", { class: "pk-stack", "data-stack": s.stack }, s.stack));
    tile.append(head);
    const note = el("div", { class: "pk-note" });
    let status = "seated";
    if (rnd) {
      const dealt = rnd.dealt_in.includes(s.seat);
      const set = rnd.set.includes(s.seat);
      status = dealt ? (set ? "set" : "setting") : s.away ? "away" : "waits";
      note.textContent = dealt ? (set ? "hand set" : "setting\u2026") : s.away ? "sitting out" : "waits this round";
      if (set) tile.append(segmentRows(null));
    } else if (shown) {
      status = shown.fouled ? "fouled" : "shown";
      tile.append(shown.sweep ? sweepRows(shown) : segmentRows(shown));
      const what = shown.sweep ? `Clean sweep: ${SWEEPS[shown.sweep] || shown.sweep}`
        : shown.fouled ? "Fouled" : "";
      if (what) note.append(el("b", {}, what));
    } else if (s.away) {
      status = "away";
      note.textContent = "sitting out";
    } else if (Object.keys(changes).length) {
      status = "waits";
      note.textContent = "not dealt in";
    }
    if (changes[s.seat] !== undefined) {  // the round's payments, net
      const n = Number(changes[s.seat]);
      note.prepend(el("span", { class: `cp-change ${n < 0 ? "down" : "up"}`, "data-change": n.toFixed(2) },
        `${n < 0 ? "\u2212" : "+"}${Math.abs(n).toFixed(2)}`), note.childNodes.length ? " " : "");
    }
    tile.dataset.status = status;
    tile.append(note);
    return tile;
  }

  function render(root, ctx) {
    const st = ctx.sb.state;
    if (!st || !Array.isArray(st.seats)) return;
    const rnd = st.round;
    const res = ctx.sb.result;
    const last = !rnd && res ? res : null;  // the last round, until the next one is dealt
    const shown = {};
    const changes = {};
    if (last && !last.void) {
      for (const h of last.hands || []) shown[h.seat] = h;
      for (const p of last.payments || []) {
        changes[p.from] = (changes[p.from] || 0) - Number(p.amount);
        changes[p.to] = (changes[p.to] || 0) + Number(p.amount);
      }
    }
    const seats = st.seats.slice().sort((a, b) => a.seat - b.seat);
    const box = $("cp-seats");
    box.style.setProperty("--cols", Math.max(seats.length, 1));
    box.replaceChildren(...seats.map((s) => seatTile(st, s, shown[s.seat], changes)));

    const phase = $("cp-phase");
    if (rnd) {
      $("cp-round").textContent = `Round ${rnd.round}`;
      phase.textContent = `setting: ${rnd.set.length} of ${rnd.dealt_in.length} hands in`;
      phase.dataset.phase = "setting";
    } else {
      $("cp-round").textContent = last ? `Round ${last.round}` : "Between rounds";
      phase.textContent = last ? (last.void ? `void${last.reason ? `: ${last.reason}` : ""}, fees returned` : "showdown") : "between rounds";
      phase.dataset.phase = "between-rounds";
    }
    const result = $("cp-result");
    result.hidden = !last || last.void;
    if (last && !last.void) {
      $("cp-points").replaceChildren(...last.points.map((p) => {
        const [a, b] = p.seats;
        const text = p.points === 0 ? `Seats ${a} and ${b}: even`
          : p.points > 0 ? `Seat ${b} pays seat ${a} ${p.points} points` : `Seat ${a} pays seat ${b} ${-p.points} points`;
        return el("li", { "data-seats": `${a}-${b}`, "data-points": p.points }, text);
      }));
      $("cp-payments").replaceChildren(...last.payments.map((p) => {
        const short = p.amount !== p.owed ? ` of ${p.owed}` : "";
        const why = p.for === "sweep" ? " sweep" : "";
        return el("li", { "data-from": p.from, "data-to": p.to, "data-amount": p.amount },
          `${p.from} \u2192 ${p.to}: ${p.amount}${short}${why}`);
      }));
      // the walk pays at most twelve times (six pairs, sweeps first): two columns past six
      $("cp-payments").classList.toggle("many", last.payments.length > 6);
      $("cp-fees").textContent = `Fees: ${last.fees.map((f) => `seat ${f.seat} ${f.amount}`).join(", ")}`;
    }
  }

  global.TablectlViews["chinese-poker"] = {
    mount(root) { root.innerHTML = MARKUP; },
    render,
    /** The header's round and phase: the round in play (`state.round`), else the last one the
     * page saw. */
    facts(ctx) {
      const st = ctx.sb.state;
      if (!st) return {};
      if (st.round) return { round: st.round.round, phase: "setting" };
      const res = ctx.sb.result;
      return { round: res ? res.round : null, phase: "between-rounds" };
    },
  };
})(window);
