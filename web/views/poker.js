/* The scoreboard's poker room view (screen "poker": the flop games, stud, draw, Dealer's Choice).
 * docs/scoreboard.md, "The poker room".
 *
 * The seats around the table, clockwise: the top row from the left, then the bottom row from the
 * right (seat 1 at the top left, the last seat at the bottom left). Each seat: its number and
 * player, the stack, the button (D), the blinds (SB, BB), the kill button (K), its bet this
 * street, whose turn it is, folded, all in, sitting out; its cards as the table shows them: a
 * hole card or a down card face down (naming nothing), a stud up card face up as it falls, a
 * draw's count. In the middle: the hand, its street and phase, the board, the pot and the pots
 * of the rounds already over, what the seat to act may do; at Dealer's Choice the game the button
 * chose. Between hands, the last hand as `round/result` has it: the board, the hands shown at
 * the seats (with their names), each pot and who took it, the collection, chips returned.
 *
 * It draws only what `state` and `round/result` carry, and they carry no card before the table
 * shows it (R46, docs/mqtt.md "The card-exposure rule"): no hole card, down card, discard, burn
 * or hand not shown, ever. A face-down card here is drawn from a count, never from a card. */
(function (global) {
  "use strict";

  const { $, el, card } = global.TablectlDraw;

  const FLOP = { "texas-holdem": 2, omaha: 4, "omaha-hi-lo": 4, "crazy-pineapple-hi-lo": 3 };
  const DRAW = new Set(["five-card-draw", "five-card-draw-hi-lo", "lowball"]);
  const SEVEN_CARD_STUD = new Set(["seven-card-stud", "seven-card-stud-hi-lo", "razz"]);
  const STUD = new Set([...SEVEN_CARD_STUD, "five-card-stud", "option-alley"]);
  const STREETS = {
    preflop: "Before the flop", flop: "Flop", turn: "Turn", river: "River",
    second: "Second street", third: "Third street", fourth: "Fourth street",
    fifth: "Fifth street", sixth: "Sixth street", seventh: "Seventh street", buy: "The buy",
    "before-draw": "Before the draw", "after-draw": "After the draw",
  };
  const PHASES = {
    betting: "betting", discard: "discards", board: "board cards", showdown: "showdown",
    deal: "dealing", buy: "the buy", draw: "the draw",
  };
  const BOARD = 5;

  const MARKUP = `
  <section class="pk-row" id="pk-top"></section>
  <section class="panel pk-middle" id="pk-middle">
    <div class="pk-title"><b id="pk-hand"></b> <span id="pk-street"></span>
      <span id="pk-phase" class="pk-phase"></span> <span id="pk-kill" class="pk-tag" hidden>Kill pot</span></div>
    <div class="pk-choice" id="pk-choice" hidden></div>
    <div class="pk-offered" id="pk-offered" hidden></div>
    <div class="pk-felt">
      <div class="cards pk-board" id="pk-board"></div>
      <div class="pk-money">
        <div class="pk-pot" id="pk-pot"></div>
        <ol class="pk-pots" id="pk-pots"></ol>
      </div>
    </div>
    <div class="pk-action" id="pk-action"></div>
  </section>
  <section class="pk-row" id="pk-bottom"></section>
  <style id="pk-style"></style>`;

  const money = (v) => (v === null || v === undefined ? "" : String(v));
  const isZero = (v) => !v || Number(v) === 0;
  const seatList = (seats) => seats.map((s) => `seat ${s}`).join(", ");
  const handName = (name) => (name ? name.replace(/-/g, " ") : "");

  /** The family of a game id: "flop", "stud", "draw" (null: not a game this view knows). */
  function family(game) {
    if (game in FLOP) return "flop";
    if (STUD.has(game)) return "stud";
    if (DRAW.has(game)) return "draw";
    return null;
  }

  /** How many cards a seat still in holds face down now (a count: the cards are never known
   * here). Crazy Pineapple holds three until its discard; stud's seven-card games two, then a
   * third on seventh street; Five Card Stud and Option Alley one. */
  function downCount(game, hand, seat) {
    const kind = family(game);
    if (kind === "draw") return 5;
    if (kind === "stud") {
      if (!SEVEN_CARD_STUD.has(game)) return 1;
      return hand.street === "seventh" ? 3 : 2;
    }
    if (game === "crazy-pineapple-hi-lo") {
      const due = hand.discards_due || [];
      if (due.length) return due.includes(seat) ? 3 : 2;
      return hand.street === "preflop" ? 3 : 2;
    }
    return FLOP[game] || 2;
  }

  /** The blinds' seats: the first two dealt in clockwise from the button's left (heads up too:
   * the engine's order, docs/games/poker-room.md). */
  function blindSeats(state) {
    const dealt = state.seats.filter((s) => s.in_round !== null && s.in_round !== undefined)
      .map((s) => s.seat);
    if (dealt.length < 2 || state.button === null) return {};
    const after = dealt.filter((s) => s > state.button);
    const ring = [...after, ...dealt.filter((s) => s <= state.button)];
    return { [ring[0]]: "SB", [ring[1]]: "BB" };
  }

  function badge(text, cls) {
    return el("span", { class: `pk-badge ${cls}`, "data-badge": text }, text);
  }

  /** One seat's tile. `shown`: the seat's hand from the last result (between hands only). */
  function seatTile(st, s, ctx) {
    const hand = st.hand;
    const game = st.game;
    const dealt = hand && s.in_round !== null && s.in_round !== undefined;
    const tile = el("div", { class: "panel pk-seat", "data-seat": s.seat });
    let status = "seated";
    if (s.away) status = "away";
    if (dealt) status = s.folded ? "folded" : hand.turn === s.seat ? "turn" : "in";
    if (hand && !dealt && !s.away) status = "out";
    tile.dataset.status = status;

    const head = el("div", { class: "pk-seat-head" });
    head.append(el("span", { class: "pk-seat-no" }, s.seat),
      el("span", { class: "pk-player" }, s.player || ""));
    const badges = el("span", { class: "pk-badges" });
    if (st.button === s.seat) badges.append(badge("D", "button"));
    const blinds = hand ? ctx.blinds : {};
    if (blinds[s.seat]) badges.append(badge(blinds[s.seat], "blind"));
    if (st.kill && st.kill.holder === s.seat) badges.append(badge("K", "kill"));
    head.append(badges);

    const stack = el("div", { class: "pk-stack", "data-stack": s.stack }, money(s.stack));
    const cardsRow = el("div", { class: "cards pk-cards" });
    const note = el("div", { class: "pk-note" });
    const shown = ctx.shown[s.seat];
    if (shown) {
      shown.cards.forEach((c) => cardsRow.append(card(c)));
      const names = [shown.high && handName(shown.high.name),
        shown.low && `low ${shown.low.name}`].filter(Boolean);
      note.textContent = names.join(" \u00b7 ");
      tile.dataset.status = "shown";
      // a seven-card stud hand shown is two rows (its down cards first), the others one
      const perRow = shown.cards.length > 5 ? Math.ceil(shown.cards.length / 2) : shown.cards.length;
      cardsRow.classList.toggle("pk-two-rows", perRow < shown.cards.length);
      cardsRow.style.setProperty("--slots", Math.max(perRow, 2));
    } else if (dealt && !s.folded) {
      const down = downCount(game, hand, s.seat);
      const up = s.up || [];
      const downs = el("span", { class: "pk-down" });
      for (let i = 0; i < down; i++) downs.append(card(null));
      cardsRow.append(downs);
      up.forEach((c) => cardsRow.append(card(c)));
      // the width the row needs, in card widths: each card of the face-down fan shows half
      cardsRow.style.setProperty("--slots", (up.length + (down ? 1 + 0.5 * (down - 1) : 0)).toFixed(2));
    }
    if (!shown) {
      const bits = [];
      if (dealt && s.folded) bits.push("folded");
      else if (dealt) {
        if (!isZero(s.in_round)) bits.push(`bet ${s.in_round}`);
        if (isZero(s.stack)) bits.push("all in");
        if (s.drew !== undefined && s.drew !== null) {
          bits.push(s.drew === 0 ? "stood pat" : `drew ${s.drew}`);
        } else if (s.drew === null && hand.phase === "draw") bits.push("to draw");
        if ((hand.discards_due || []).includes(s.seat)) bits.push("to discard");
        if (hand.turn === s.seat) bits.push("to act");
      } else if (s.away) {
        bits.push("sitting out");
        if (s.owes && s.owes !== "none") bits.push(s.owes === "both" ? "owes both blinds" : "owes the big blind");
      } else if (hand) bits.push("not dealt in");
      note.textContent = bits.join(" \u00b7 ");
    }
    const won = ctx.won[s.seat];
    if (won) {
      note.prepend(el("b", { class: "pk-won", "data-won": won }, `won ${won}`),
        note.textContent ? " \u00b7 " : "");
      note.classList.add("pk-result");
    }
    tile.append(head, stack, cardsRow, note);
    return tile;
  }

  /** What the seat to act may do, from `state.hand`; in the draw, the seat drawing next (in
   * turn from the button's left, docs/games/draw.md). */
  function actionText(st) {
    const hand = st.hand;
    if (hand.phase === "draw") {
      const due = st.seats.filter((s) => s.in_round !== null && s.in_round !== undefined
        && !s.folded && s.drew === null).map((s) => s.seat);
      const next = due.find((s) => s > st.button) || due[0];
      return next ? `Seat ${next} to draw` : "";
    }
    if (hand.turn === null || hand.turn === undefined) return "";
    const open = isZero(hand.to_call);
    const choices = [open ? "check" : `call ${hand.to_call}`];
    if (hand.min_to !== null && hand.min_to !== undefined) {
      const verb = open ? "bet" : "raise to";
      choices.push(hand.min_to === hand.max_to ? `${verb} ${hand.min_to}`
        : `${verb} ${hand.min_to}\u2013${hand.max_to}`);
    }
    if (!open && choices.length === 1) choices.push("fold");
    return `Seat ${hand.turn} to act: ${choices.join(" or ")}`;
  }

  /** A pot's name: "Main pot", "Side pot", or "Side pot 2" where there are more. */
  function potName(i, count) {
    if (count === 1) return "Pot";
    if (i === 0) return "Main pot";
    return count > 2 ? `Side pot ${i}` : "Side pot";
  }

  /** The pots of the rounds over, each with the seats that may win it. */
  function potItems(pots) {
    return pots.map((p, i) => el("li", { "data-pot": i, "data-amount": p.amount },
      `${potName(i, pots.length)} ${p.amount}: seats ${p.eligible.join(", ")}`));
  }

  /** The last hand's pots as `round/result` has them: each pot, who took it, the collection. */
  function resultItems(res) {
    if (res.void) {
      const why = res.reason && res.reason !== "misdeal" ? ` (${res.reason})` : "";
      return [el("li", { "data-void": "1" }, `Misdeal${why}: every chip returned`)];
    }
    const items = (res.pots || []).map((p, i) => {
      const name = potName(i, res.pots.length);
      const paid = p.paid.length === 1 ? `seat ${p.paid[0].seat}`
        : p.paid.map((x) => `seat ${x.seat} ${x.amount}`).join(", ");
      const split = p.low && p.low.length ? ` (high ${seatList(p.high)}, low ${seatList(p.low)})` : "";
      return el("li", { "data-pot": i, "data-amount": p.amount }, `${name} ${p.amount}: ${paid}${split}`);
    });
    const fee = res.fee;
    if (fee && !isZero(fee.amount)) {
      items.push(el("li", { "data-fee": fee.amount },
        `Collection ${fee.amount} (${fee.modified ? "ended before the flop" : `${fee.players} players`})`));
    }
    for (const r of res.returned || []) {
      items.push(el("li", { "data-returned": r.seat }, `Returned to seat ${r.seat}: ${r.amount}`));
    }
    if (res.declared) items.push(el("li", {}, "Showdown declared by the dealer"));
    else if (!res.showdown) items.push(el("li", {}, "No showdown: the others folded"));
    return items;
  }

  function drawBoard(cards, game) {
    const box = $("pk-board");
    box.hidden = family(game) !== "flop";
    box.replaceChildren(...cards.map(card));
    for (let i = cards.length; i < BOARD; i++) box.append(el("span", { class: "pk-slot" }));
  }

  const STRUCTURES = { "fixed-limit": "Fixed limit", "spread-limit": "Spread limit",
    "pot-limit": "Pot limit", "no-limit": "No limit" };

  /** A game's betting as `info.posted.betting` (or one of its `games`) has it. */
  function stakesText(b) {
    const name = STRUCTURES[b.structure] || b.structure;
    if (!b.stakes) return name;
    const late = b.late_stakes ? ` / ${b.late_stakes.join("\u2013")}` : "";
    return `${name} ${b.stakes.join("\u2013")}${late}`;
  }

  /** An offered game's own limits where they are not the table's (the header's); else "". */
  function ownLimits(g, table) {
    const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
    if (!table || (g.structure === table.structure && same(g.stakes, table.stakes)
      && same(g.late_stakes, table.late_stakes) && same(g.blinds, table.blinds))) return "";
    return `${stakesText(g)}, blinds ${g.blinds.join(" / ")}`;
  }

  /** Dealer's Choice: the game the button chose for the hand in play (and its own limits), or
   * between hands the games offered, each with its own limits where they differ. The posted
   * panel's line a game (the frame's) would not fit the screen beside the seats: they are
   * shown here instead, in short, and hidden there (a style this view writes). */
  function drawChoice(st, ctx) {
    const dc = st.dealers_choice;
    const choice = $("pk-choice");
    const offered = $("pk-offered");
    choice.hidden = offered.hidden = !dc;
    const betting = ctx.sb.info && ctx.sb.info.posted ? ctx.sb.info.posted.betting : null;
    const games = (betting && betting.games) || [];
    const limits = Object.fromEntries(games.map((g) => [g.game, ownLimits(g, betting)]));
    $("pk-style").textContent = games.map((g) => {
      const dd = `dd[data-posted="${ctx.gameName(g.game).replace(/"/g, '\\"')}"]`;
      return `main#poker #posted-facts ${dd}, main#poker #posted-facts dt:has(+ ${dd}) { display: none; }`;
    }).join("\n");
    if (!dc) return;
    const own = dc.game && limits[dc.game] ? ` (${limits[dc.game]})` : "";
    choice.textContent = dc.game ? `Dealer's Choice: the button chose ${ctx.gameName(dc.game)}${own}`
      : "Dealer's Choice: the button chooses the next hand's game";
    choice.dataset.game = dc.game || "";
    offered.hidden = Boolean(dc.game);
    offered.textContent = `Offered: ${dc.games.map((g) => ctx.gameName(g)
      + (limits[g] ? ` (${limits[g]})` : "")).join(", ")}`;
  }

  function render(root, ctx) {
    const st = ctx.sb.state;
    if (!st || !Array.isArray(st.seats)) return;
    const hand = st.hand;
    const res = ctx.sb.result;
    const last = !hand && res ? res : null;  // the last hand, until the next one starts
    const view = {
      blinds: hand ? blindSeats(st) : {},
      shown: {},
      won: {},
    };
    if (last && !last.void) {
      for (const h of last.shown || []) view.shown[h.seat] = h;
      for (const p of last.pots || []) {
        for (const x of p.paid) {
          view.won[x.seat] = (Number(view.won[x.seat] || 0) + Number(x.amount)).toFixed(2);
        }
      }
    }
    const seats = st.seats.slice().sort((a, b) => a.seat - b.seat);
    const top = seats.slice(0, Math.ceil(seats.length / 2));
    const bottom = seats.slice(top.length);  // drawn right to left (poker.css)
    for (const [id, list] of [["pk-top", top], ["pk-bottom", bottom]]) {
      const row = $(id);
      row.style.setProperty("--cols", Math.max(top.length, 1));
      row.replaceChildren(...list.map((s) => seatTile(st, s, view)));
    }

    const game = hand ? st.game : last ? last.game : st.game;
    drawChoice(st, ctx);
    const phase = $("pk-phase");
    if (hand) {
      $("pk-hand").textContent = `Hand ${hand.round}`;
      $("pk-street").textContent = STREETS[hand.street] || hand.street;
      $("pk-street").dataset.street = hand.street;
      phase.textContent = PHASES[hand.phase] || hand.phase;
      phase.dataset.phase = hand.phase;
      $("pk-kill").hidden = !hand.kill_pot;
      $("pk-kill").textContent = "Kill pot";
      drawBoard(hand.board || [], game);
      $("pk-pot").textContent = `Pot ${hand.pot}`;
      $("pk-pot").dataset.pot = hand.pot;
      const pots = hand.pots || [];
      $("pk-pots").replaceChildren(...(pots.length > 1 ? potItems(pots) : []));
      $("pk-action").textContent = actionText(st);
    } else {
      $("pk-hand").textContent = last ? `Hand ${last.round}` : "";
      $("pk-street").textContent = !last ? "" : last.void ? "misdeal" : last.showdown ? "showdown" : "won uncontested";
      $("pk-street").dataset.street = "";
      phase.textContent = "between hands";
      phase.dataset.phase = "between-hands";
      $("pk-kill").hidden = !(st.kill && st.kill.next_hand);
      $("pk-kill").textContent = "Next hand a kill pot";
      drawBoard(last ? last.board || [] : [], game);
      $("pk-pot").textContent = "";
      $("pk-pot").dataset.pot = "";
      $("pk-pots").replaceChildren(...(last ? resultItems(last) : []));
      $("pk-action").textContent = "";
    }
  }

  global.TablectlViews.poker = {
    family,
    mount(root) { root.innerHTML = MARKUP; },
    render,
    /** The header's round and phase: the hand in play's (`state.hand`), else the last hand the
     * page saw, between hands. */
    facts(ctx) {
      const st = ctx.sb.state;
      if (!st) return {};
      if (st.hand) return { round: st.hand.round, phase: st.hand.phase };
      const res = ctx.sb.result;
      return { round: res ? res.round : null, phase: "between-hands" };
    },
  };
})(window);
