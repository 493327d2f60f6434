/* The scoreboard's baccarat view (screen "baccarat": EZ Baccarat Panda 8): the EZTRAK
 * statistics and roads of `display/eztrak` (R28), the coup as the shoe deals it (`state.cards`),
 * the last hand (`round/result`) and the bead plate. docs/scoreboard.md. */
(function (global) {
  "use strict";

  const { $, el, cards } = global.TablectlDraw;
  const ROWS = 6;
  const STATS = [
    ["player", "Player"], ["banker", "Banker"], ["tie", "Tie"], ["dragon7", "Dragon 7"],
    ["panda8", "Panda 8"], ["naturals", "Naturals"], ["player_naturals", "Player naturals"],
    ["banker_naturals", "Banker naturals"],
  ];

  // Three columns (scoreboard.css): the statistics over the bead plate, the roads over this
  // round and the last hand, and the frame's posted panel, which the page appends last.
  const MARKUP = `
  <div class="column" id="bac-left">
  <section id="stats-panel" class="panel">
    <h2>Statistics</h2>
    <table id="stats">
      <thead><tr><th></th><th colspan="2">this shoe</th><th colspan="2" class="prev">previous shoe</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
  <section id="bead-panel" class="panel">
    <h2>Bead plate</h2>
    <div class="road beads" id="bead-plate"></div>
  </section>
  </div>
  <div class="column" id="bac-middle">
  <section id="roads-panel" class="panel">
    <h2>Big road</h2>
    <div class="road big" id="big-road"></div>
    <div class="derived">
      <div><h3>Big eye boy</h3><div class="road small" id="big-eye-boy"></div></div>
      <div><h3>Small road</h3><div class="road small" id="small-road"></div></div>
      <div><h3>Cockroach pig</h3><div class="road small" id="cockroach-pig"></div></div>
    </div>
  </section>
  <section id="hand-panel" class="panel">
    <h2>This round <span id="phase"></span></h2>
    <div class="hands" id="now">
      <div class="hand player"><h3>Player <b class="total" id="now-player-total"></b></h3><div class="cards" id="now-player"></div></div>
      <div class="hand banker"><h3>Banker <b class="total" id="now-banker-total"></b></h3><div class="cards" id="now-banker"></div></div>
    </div>
    <p class="bank" id="bank"></p>
    <h2>Last hand <span id="last-winner"></span></h2>
    <div class="hands" id="last">
      <div class="hand player"><h3>Player <b class="total" id="last-player-total"></b></h3><div class="cards" id="last-player"></div></div>
      <div class="hand banker"><h3>Banker <b class="total" id="last-banker-total"></b></h3><div class="cards" id="last-banker"></div></div>
    </div>
  </section>
  </div>`;

  function baccaratTotal(list) {
    let sum = 0;
    for (const c of list) sum += c[0] === "A" ? 1 : "23456789".includes(c[0]) ? Number(c[0]) : 0;
    return sum % 10;
  }

  /** Lay road columns (true length) on a grid of `rows` rows: each column starts one grid
   * column right of the last one's start, at the top; a column longer than the grid, or that
   * meets a cell already there, turns right along its last row (the "dragon tail"). Returns
   * [{cell, c, r, x, y}]: c, r the column and row in the data; x, y the place on the grid. */
  function layout(columns, rows) {
    const taken = new Set();
    const placed = [];
    let start = -1;
    columns.forEach((column, c) => {
      let x = start + 1;
      while (taken.has(`${x},0`)) x++;
      start = x;
      let y = 0, tail = false;
      column.forEach((cell, r) => {
        if (r > 0) {
          if (!tail && y + 1 < rows && !taken.has(`${x},${y + 1}`)) y++;
          else { x++; tail = true; }
        }
        taken.add(`${x},${y}`);
        placed.push({ cell, c, r, x, y });
      });
    });
    return placed;
  }

  /** Draw placed cells on road `id`: at least as many grid columns as the box shows, and when
   * the road is longer than that, scrolled so that its newest columns are in view. */
  function drawRoad(id, placed, make) {
    const box = $(id);
    // A cell's size in px: the first of the road's six rows (--cell is a calc() of the screen).
    const cell = parseFloat(getComputedStyle(box).gridTemplateRows) || 26;
    const fits = Math.max(1, Math.floor(box.clientWidth / cell));
    const width = Math.max(fits, ...placed.map((p) => p.x + 1));
    box.style.gridTemplateColumns = `repeat(${width}, var(--cell))`;
    box.replaceChildren(...placed.map((p) => {
      const e = make(p.cell);
      e.setAttribute("data-col", p.c);
      e.setAttribute("data-row", p.r);
      e.style.gridColumn = String(p.x + 1);
      e.style.gridRow = String(p.y + 1);
      return e;
    }));
    box.scrollLeft = Math.max(0, box.scrollWidth - box.clientWidth);
  }

  function drawRoads(roads) {
    const bead = (roads.bead_plate || []).flatMap((col, c) =>
      col.map((cell, r) => ({ cell, c, r, x: c, y: r })));
    drawRoad("bead-plate", bead, (v) => el("span", { class: `bead v-${v}`, "data-v": v }, v));
    drawRoad("big-road", layout(roads.big_road || [], ROWS), (cell) => {
      const e = el("span", { class: `br v-${cell.winner}`, "data-v": cell.winner,
        "data-ties": cell.ties, "data-natural": cell.natural ? "1" : "0" });
      if (cell.natural) e.append(el("i", { class: "nat" }));
      if (cell.ties) e.append(el("i", { class: "tie" }, cell.ties > 1 ? cell.ties : ""));
      return e;
    });
    for (const [id, key, cls] of [["big-eye-boy", "big_eye_boy", "eye"],
      ["small-road", "small_road", "dot"], ["cockroach-pig", "cockroach_pig", "slash"]]) {
      drawRoad(id, layout(roads[key] || [], ROWS), (v) => el("span", { class: `${cls} c-${v}`, "data-v": v }));
    }
  }

  function drawStats(z) {
    const body = $("stats").tBodies[0];
    const rows = [["hands", "Hands"], ...STATS].map(([key, label]) => {
      const tr = el("tr", { "data-stat": key });
      tr.append(el("th", {}, label));
      for (const [block, which] of [[z.stats, "cur"], [z.previous, "prev"]]) {
        const v = block ? block[key] : null;
        const count = v === null || v === undefined ? "" : key === "hands" ? v : v.count;
        const pct = v && key !== "hands" ? `${v.pct}%` : "";
        tr.append(el("td", { class: `count ${which}` }, count), el("td", { class: `pct ${which}` }, pct));
      }
      return tr;
    });
    body.replaceChildren(...rows);
    $("stats").classList.toggle("no-previous", !z.previous);
  }

  function drawBoard(z) {
    $("shoe").textContent = z.shoe;
    $("hands").textContent = z.hands;
    const lim = z.limits || {};
    const keys = Object.keys(lim);
    $("limits").textContent = keys.length === 2 && lim.min && lim.max
      ? `Limits ${lim.min}\u2013${lim.max}`
      : keys.map((k) => `${k} ${lim[k]}`).join(" \u00b7 ");
    $("limits").dataset.from = "display/eztrak";  // the EZTRAK board's limits first
    drawStats(z);
    drawRoads(z.roads || {});
  }

  function drawCoup(st) {
    const now = st.cards || { player: [], banker: [] };
    cards("now-player", now.player);
    cards("now-banker", now.banker);
    $("now-player-total").textContent = now.player.length ? baccaratTotal(now.player) : "";
    $("now-banker-total").textContent = now.banker.length ? baccaratTotal(now.banker) : "";
    $("phase").textContent = st.phase === "betting" ? "place your bets" : "no more bets";
    $("phase").dataset.phase = st.phase;
    const pd = st.player_dealer;
    $("bank").textContent = pd
      ? `Player-dealer seat\u00a0${pd.seat}, bank ${pd.bank} (hand\u00a0${pd.turn}\u00a0of\u00a02)`
      : st.bank_offer_seat ? `Bank offered to seat\u00a0${st.bank_offer_seat}` : "No bank posted";
  }

  /** The last hand in words: "Round 11: player wins", "Round 12: banker wins, a natural",
   * "Round 5: tie, two naturals", "Round 2: banker wins, Dragon 7", "Round 4: player wins,
   * Panda 8". (A natural ends the coup on two cards each, so it never comes with a Dragon 7 or
   * a Panda 8, which take three.) */
  function lastHandText(round, o) {
    const what = o.winner === "tie" ? "tie" : `${o.winner} wins`;
    const both = o.player && o.banker && o.player.natural && o.banker.natural;
    const natural = both ? "two naturals" : o.natural ? "a natural" : "";
    const tags = [natural, o.dragon7 ? "Dragon 7" : "", o.panda8 ? "Panda 8" : ""];
    return [`Round ${round}: ${what}`, ...tags.filter(Boolean)].join(", ");
  }

  function drawLast(res) {
    const o = res.outcome;
    $("last").dataset.round = res.round;
    if (res.void || !o) {
      $("last-winner").textContent = `Round ${res.round} void${res.reason ? `: ${res.reason}` : ""}`;
      $("last-winner").dataset.winner = "void";
      for (const side of ["player", "banker"]) { cards(`last-${side}`, []); $(`last-${side}-total`).textContent = ""; }
      return;
    }
    $("last-winner").textContent = lastHandText(res.round, o);
    $("last-winner").dataset.winner = o.winner;
    for (const side of ["player", "banker"]) {
      cards(`last-${side}`, o[side].cards);
      $(`last-${side}-total`).textContent = o[side].total;
    }
  }

  global.TablectlViews.baccarat = {
    layout,  // for a test of the dragon tail
    mount(root) { root.innerHTML = MARKUP; },
    render(root, ctx) {
      const { eztrak, state, result } = ctx.sb;
      if (eztrak) drawBoard(eztrak);
      if (state) drawCoup(state);
      if (result) drawLast(result);
    },
  };
})(window);
