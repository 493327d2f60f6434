/* What the scoreboard's views share for drawing (docs/scoreboard.md): elements, cards, money.
 *
 * One classic script, loaded after page.js and before the views, that defines `TablectlDraw`
 * and the registry the views put themselves in, `TablectlViews`:
 *
 *   const { el, card, cards, $ } = TablectlDraw;
 *   el("span", { class: "x", "data-seat": 3 }, "text")   // an element, attributes, text
 *   card("Th")                                            // a drawn card: "10♥", data-card="Th"
 *   card(null)                                            // a card face down (no code: none shown)
 *   cards(box, ["9h", "2d"])                              // box's children become those cards
 *
 *   TablectlViews["<screen>"] = { mount(root, ctx), render(root, ctx), facts(ctx) };
 *
 * A view is the drawing of one game family, named by the game's spec (`info.screen`): `mount`
 * builds its DOM inside `root` (a <main> the page makes for it, id = the screen name) once,
 * `render` draws what the page knows (`ctx.sb`: the table's `state`, `info`, `result`, ...)
 * whenever a message came, and `facts` gives the header's {round, phase} (a view that leaves
 * it out gets `state.round` and `state.phase`). `ctx` also carries `draw` (this object),
 * `gameName`, `tsMillis`, `tableNow` and `postedFits()` (whether what the table posts, already
 * in the view when `render` is called, can be shown in its place a page at a time: for a view
 * that lays itself out to fit, as banked.js's does). A view draws only what the table's topics
 * carry: they never hold a card the table has not shown (docs/mqtt.md, "The card-exposure
 * rule").
 */
(function (global) {
  "use strict";

  const SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };

  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else if (k.startsWith("data-")) e.setAttribute(k, v);
      else e[k] = v;
    }
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  /** A card as the table shows it ("Th" is the ten of hearts; "JKR" the joker, as
   * tablectl_base/cards.py names it); a falsy code is a card face down, which names nothing. */
  function card(code) {
    if (!code) return el("span", { class: "card down", "data-card": "" }, "");
    if (code === "JKR" || code === "JK" || code === "Jk" || code === "joker") {
      return el("span", { class: "card joker", "data-card": code }, "JKR");
    }
    const rank = code[0] === "T" ? "10" : code[0];
    const suit = code[1];
    return el("span", { class: `card suit-${suit}`, "data-card": code }, rank + (SUITS[suit] || suit));
  }

  /** `box` (an element or its id) holds exactly these cards, in order. */
  function cards(box, list) {
    const target = typeof box === "string" ? $(box) : box;
    target.replaceChildren(...(list || []).map(card));
  }

  global.TablectlDraw = { $, el, card, cards, SUITS };
  global.TablectlViews = global.TablectlViews || {};
})(window);
