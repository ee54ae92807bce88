// TableTally's scoreboard on a phone. Read only: it follows the kiosk's server-sent events
// (/api/events) and, when the stream is refused or keeps failing, polls /api/snapshot with its ETag.
// Every name is put on the page as text (textContent), never as markup.
"use strict";

(function () {
  const L = JSON.parse(document.getElementById("labels").textContent);
  const board = document.getElementById("board");
  const status = document.getElementById("status");
  const SVG = "http://www.w3.org/2000/svg";
  let shown = null; // the version on screen
  let source = null;
  let pollTimer = null;
  let failures = 0;
  let digits = "0123456789"; // the kiosk's digits, from each snapshot (Western or Devanagari)

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // A number as the kiosk writes it: each Western digit in the kiosk's digits (the text the kiosk wrote,
  // headlines and notes, already has them).
  function num(value) {
    return String(value).replace(/[0-9]/g, function (d) { return digits.charAt(Number(d)); });
  }

  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    for (const key in attrs) node.setAttribute(key, String(attrs[key]));
    return node;
  }

  function setStatus(kind) {
    status.className = "status " + kind;
    status.textContent = kind === "live" ? L.live : kind === "down" ? L.reconnecting : L.connecting;
  }

  function table(head, rows, numeric) {
    const t = el("table");
    const tr = el("tr");
    head.forEach(function (h, i) {
      tr.appendChild(el("th", numeric.indexOf(i) >= 0 ? "num" : "", h));
    });
    const thead = el("thead");
    thead.appendChild(tr);
    t.appendChild(thead);
    const body = el("tbody");
    rows.forEach(function (r) { body.appendChild(r); });
    t.appendChild(body);
    return t;
  }

  function tag(cls, text) { return el("span", "tag " + cls, text); }

  function chips(cards) {
    const box = el("div", "cards");
    cards.forEach(function (c) {
      const suit = c.code.slice(-1);
      box.appendChild(el("span", "chip" + (suit === "H" || suit === "D" ? " red" : ""), c.label));
    });
    return box;
  }

  function card(title, cls) {
    const c = el("section", "card" + (cls ? " " + cls : ""));
    if (title) c.appendChild(el("h2", "", title));
    return c;
  }

  function jhyapTotals(game) {
    const j = game.jhyap;
    const c = card(null);
    c.appendChild(el("p", "headline", L.jhyap + " \u00b7 " + game.title));
    c.appendChild(el("p", "sub", L.out_above + " " + num(j.max_score)));
    const rows = j.players.map(function (p) {
      const tr = el("tr", p.out ? "out" : "");
      tr.dataset.player = p.name;
      const name = el("td", "name", p.name);
      const tags = el("div");
      if (p.out) tags.appendChild(tag("out", L.out));
      if (p.deals) tags.appendChild(tag("deals", L.deals));
      if (p.starts) tags.appendChild(tag("starts", L.starts));
      name.appendChild(tags);
      tr.appendChild(name);
      tr.appendChild(el("td", "num big total", num(p.total)));
      tr.appendChild(el("td", "num", p.out ? "" : num(p.to_go)));
      return tr;
    });
    c.appendChild(table([L.player, L.total, L.to_go], rows, [1, 2]));
    if (game.status === "finished" && game.winner) c.appendChild(el("p", "headline", L.winner + ": " + game.winner));
    else if (j.next) c.appendChild(el("p", "sub", j.next));
    return c;
  }

  function jhyapLast(game) {
    const last = game.jhyap.last;
    const c = card(L.last_round + " " + num(last.number));
    c.appendChild(el("p", "sub", last.headline));
    const rows = last.lines.map(function (line) {
      const tr = el("tr");
      const name = el("td", "name", line.name);
      if (line.name === last.caller) name.appendChild(el("div")).appendChild(tag("called", L.called));
      if (line.cards.length) name.appendChild(chips(line.cards));
      if (line.note && line.name !== last.caller) name.appendChild(el("div", "sub", line.note));
      tr.appendChild(name);
      tr.appendChild(el("td", "num", line.hand === null ? "" : num(line.hand)));
      tr.appendChild(el("td", "num", line.points === null ? "" : num(line.points)));
      return tr;
    });
    c.appendChild(table([L.player, L.hand, L.points], rows, [1, 2]));
    return c;
  }

  function seepTeams(game) {
    const s = game.seep;
    const c = card(null);
    c.appendChild(el("p", "headline", L.seep + " \u00b7 " + game.title));
    c.appendChild(el("p", "headline lead", s.lead_text));
    const grid = el("div", "teams");
    s.teams.forEach(function (t) {
      const box = el("div", "team" + (t.leading_by > 0 ? " ahead" : ""));
      box.appendChild(el("div", "who", t.name));
      box.appendChild(el("div", "baazis", num(t.baazis)));
      box.appendChild(el("div", "label", L.baazis));
      if (t.leading_by > 0) box.appendChild(el("div", "label", L.lead + " " + num(t.leading_by)));
      grid.appendChild(box);
    });
    c.appendChild(grid);
    if (game.status === "finished" && game.winner) c.appendChild(el("p", "headline", L.winner + ": " + game.winner));
    return c;
  }

  function seepLast(game) {
    const last = game.seep.last;
    const c = card(L.last_deal + " " + num(last.number));
    const rows = last.lines.map(function (line) {
      const tr = el("tr");
      tr.appendChild(el("td", "name", line.name));
      tr.appendChild(el("td", "num", num(line.cards)));
      tr.appendChild(el("td", "num", num(line.sweeps)));
      tr.appendChild(el("td", "num big", num(line.points)));
      return tr;
    });
    c.appendChild(table([L.team, L.cards, L.sweeps, L.points], rows, [1, 2, 3]));
    c.appendChild(el("p", "sub", last.lead_text));
    if (last.baazi_text) c.appendChild(el("p", "headline", last.baazi_text));
    return c;
  }

  function chart(game) {
    const series = game.chart.series;
    const names = Object.keys(series);
    const c = card(game.kind === "jhyap" ? L.chart : L.chart_seep, "chart");
    let n = 0;
    let top = game.chart.limit || 0;
    names.forEach(function (k) {
      n = Math.max(n, series[k].length);
      series[k].forEach(function (v) { top = Math.max(top, v); });
    });
    top = Math.max(top, 10);
    const W = 340, H = 190, left = 34, right = 8, up = 10, down = 22;
    const x = function (i) { return left + (n > 1 ? (i * (W - left - right)) / (n - 1) : 0); };
    const y = function (v) { return up + (H - up - down) * (1 - v / top); };
    const pic = svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": c.firstChild.textContent });
    pic.appendChild(svg("line", { class: "axis", x1: left, y1: y(0), x2: W - right, y2: y(0) }));
    pic.appendChild(svg("line", { class: "axis", x1: left, y1: up, x2: left, y2: y(0) }));
    [0, top].forEach(function (v) {
      const t = svg("text", { x: left - 4, y: y(v) + 4, "text-anchor": "end" });
      t.textContent = num(v);
      pic.appendChild(t);
    });
    if (game.chart.limit) {
      pic.appendChild(svg("line", { class: "limit", x1: left, y1: y(game.chart.limit), x2: W - right, y2: y(game.chart.limit) }));
    }
    const step = Math.max(1, Math.ceil((n - 1) / 8));
    for (let i = 0; i < n; i += step) {
      const t = svg("text", { x: x(i), y: H - 6, "text-anchor": "middle" });
      t.textContent = num(i);
      pic.appendChild(t);
    }
    const legend = el("div", "legend");
    names.forEach(function (k, i) {
      const colour = "var(--s" + (i % 5) + ")";
      const points = series[k].map(function (v, j) { return x(j) + "," + y(v); }).join(" ");
      pic.appendChild(svg("polyline", { points: points, fill: "none", stroke: colour, "stroke-width": 3, "stroke-linejoin": "round" }));
      const item = el("span", "", k);
      const swatch = el("i");
      swatch.style.background = colour;
      item.insertBefore(swatch, item.firstChild);
      legend.appendChild(item);
    });
    c.appendChild(pic);
    c.appendChild(legend);
    return c;
  }

  function tonight(data) {
    const c = card(L.tonight);
    const list = el("ul", "games");
    data.tonight.games.forEach(function (g) {
      const result = g.winner ? L.winner + ": " + g.winner : L[g.status] || g.status;
      list.appendChild(el("li", "", num(g.started) + " " + L[g.kind] + ": " + g.players + " (" + result + ")"));
    });
    c.appendChild(list);
    if (data.tonight.standings.length) {
      c.appendChild(el("h2", "", L.standings)).style.marginTop = "12px";
      const rows = data.tonight.standings.map(function (s) {
        const tr = el("tr");
        tr.appendChild(el("td", "name", s.name));
        tr.appendChild(el("td", "num", num(s.played)));
        tr.appendChild(el("td", "num big", num(s.won)));
        tr.appendChild(el("td", "num", num(s.baazis)));
        return tr;
      });
      c.appendChild(table([L.player, L.played, L.won, L.baazis], rows, [1, 2, 3]));
    }
    return c;
  }

  // The night's story so far: sentences the kiosk wrote (its words and digits).
  function story(data) {
    const c = card(L.story);
    c.id = "story";
    const list = el("ul", "story");
    data.tonight.story.forEach(function (line) { list.appendChild(el("li", "", line)); });
    c.appendChild(list);
    return c;
  }

  // The page's words are the kiosk's language when the page was served: after a change in Settings, load
  // it again (once per snapshot, so a page can never reload in a loop).
  function sameLanguage(data) {
    if (!data.language || data.language === document.documentElement.lang) return true;
    try {
      if (sessionStorage.getItem("tabletally-reloaded") === data.version) return true;
      sessionStorage.setItem("tabletally-reloaded", data.version);
    } catch (e) {
      return true; // no session storage: keep the words rather than risk reloading again and again
    }
    location.reload();
    return false;
  }

  function render(data) {
    if (data.version === shown) return;
    if (!sameLanguage(data)) return;
    shown = data.version;
    if (data.digits && data.digits.length === 10) digits = data.digits;
    const parts = [];
    const game = data.game;
    if (!game) {
      parts.push(el("p", "empty card wide", L.no_game));
    } else if (game.kind === "jhyap") {
      parts.push(jhyapTotals(game));
      if (game.jhyap.last) parts.push(jhyapLast(game));
      if (game.entries) parts.push(chart(game));
    } else {
      parts.push(seepTeams(game));
      if (game.seep.last) parts.push(seepLast(game));
      if (game.entries) parts.push(chart(game));
    }
    if (data.tonight.games.length) parts.push(tonight(data));
    if (data.tonight.story && data.tonight.story.length) parts.push(story(data));
    board.replaceChildren.apply(board, parts);
    board.dataset.version = data.version;
  }

  // -- staying connected ----------------------------------------------------------------------------

  let etag = null;
  function poll() {
    clearTimeout(pollTimer);
    const headers = etag ? { "If-None-Match": etag } : {};
    fetch("/api/snapshot", { headers: headers, cache: "no-store" })
      .then(function (r) {
        if (r.status === 304) return null;
        if (!r.ok) throw new Error(String(r.status));
        etag = r.headers.get("ETag");
        return r.json();
      })
      .then(function (data) {
        if (data) render(data);
        setStatus("live");
        failures += 1; // counts polls; every fifth one tries the live stream again
        if (failures % 5 === 0) return listen();
        pollTimer = setTimeout(poll, 3000);
      })
      .catch(function () {
        setStatus("down");
        pollTimer = setTimeout(poll, 3000);
      });
  }

  function listen() {
    clearTimeout(pollTimer);
    if (source) source.close();
    source = new EventSource("/api/events");
    source.addEventListener("snapshot", function (e) {
      failures = 0;
      render(JSON.parse(e.data));
      setStatus("live");
    });
    source.onerror = function () {
      setStatus("down");
      // The browser retries by itself after a dropped connection (the kiosk restarting); a refused
      // stream (too many phones) closes it: then poll until the stream has room again.
      if (source.readyState === EventSource.CLOSED) {
        source = null;
        pollTimer = setTimeout(poll, 1000);
      }
    };
  }

  document.getElementById("foot").textContent = L.read_only;
  setStatus("connecting");
  listen();
})();
