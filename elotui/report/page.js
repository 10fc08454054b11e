"use strict";
// elotui report: draws the page from the JSON block "report-data". Every text from the data goes in with
// textContent (or as an attribute value), never as markup.
(function () {
  const DATA = JSON.parse(document.getElementById("report-data").textContent);
  const META = DATA.meta;
  const SVGNS = "http://www.w3.org/2000/svg";
  const PAGE_SIZE = 50;
  const BAND_COLOURS = { "practically tied": "#999999", moderate: "#E69F00", strong: "#0072B2" };
  const state = { threshold: META.threshold, method: META.method, page: 0, selected: null, found: null };
  const labels = {};
  META.contestants.forEach(function (c) { labels[c.id] = c.label; });

  // --- small helpers -------------------------------------------------------------------------------------------
  function el(tag, attrs, children) {
    const e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      const v = attrs[k];
      if (v === null || v === undefined || v === false) return;
      if (k === "text") e.textContent = String(v);
      else if (k.slice(0, 2) === "on") e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : String(v));
    });
    (children || []).forEach(function (c) {
      if (c !== null && c !== undefined) e.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
    });
    return e;
  }
  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVGNS, tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  function num(x, digits) { return x === null || x === undefined ? "" : Number(x).toFixed(digits); }
  function pct(x) { return x === null || x === undefined ? "" : (100 * x).toFixed(1) + " %"; }
  function name(id) { return labels[id] || id; }
  function section(id, title, intro) {
    const s = el("section", { id: id, "aria-labelledby": id + "-h" }, [el("h2", { id: id + "-h", text: title })]);
    if (intro) s.appendChild(el("p", { class: "note", text: intro }));
    return s;
  }
  function table(id, caption, header, rows) {
    const head = el("tr", {}, header.map(function (h) { return el("th", { scope: "col", text: h }); }));
    const body = el("tbody", {}, rows);
    return el("table", { id: id }, [el("caption", { text: caption }), el("thead", {}, [head]), body]);
  }
  function cells(values) { return values.map(function (v) { return el("td", { text: v }); }); }
  function board() { return DATA.boards[state.method + "|" + state.threshold]; }
  // Okabe-Ito orange (0) - white (0.5) - blue (1): a colour-blind-safe diverging scale
  function diverging(x) {
    if (x === null || x === undefined || isNaN(x)) return "#eeeeee";
    const t = Math.max(0, Math.min(1, x));
    const lo = [230, 159, 0], hi = [0, 114, 178];
    const end = t < 0.5 ? lo : hi, w = Math.abs(t - 0.5) * 1.6;  // at most 80 %: dark text stays readable
    const c = end.map(function (v) { return Math.round(255 + (v - 255) * w); });
    return "rgb(" + c.join(",") + ")";
  }

  // --- header, warnings --------------------------------------------------------------------------------------
  function header() {
    const h = el("header", {}, [el("h1", { text: META.tournament })]);
    if (META.description) h.appendChild(el("p", { text: META.description }));
    h.appendChild(el("p", { class: "note", text: "Criterion: " + META.criterion }));
    const nav = el("nav", { "aria-label": "sections" }, [["leaderboard-s", "Leaderboard"], ["h2h-s", "Head to head"],
      ["judges-s", "Judges"], ["tau-s", "Per-prompt τ"], ["pairs-s", "Pairs"], ["provenance-s", "Provenance"]].map(
      function (p) { return el("a", { href: "#" + p[0], text: p[1] }); }));
    h.appendChild(nav);
    return h;
  }
  function warningList() {
    const box = el("div", { id: "warnings", role: "status" });
    const b = board();
    const items = (b.warnings || []).map(function (w) { return el("li", { text: w.message || w.kind }); });
    if (META.reasoning_limit) {
      items.push(el("li", { text: "Reasoning longer than " + META.reasoning_limit + " characters is cut (marked […]); " +
        "`elotui verdicts` writes the full texts." }));
    }
    if (META.pairs && META.pairs.kept < META.pairs.all) {
      items.push(el("li", { text: META.pairs.kept.toLocaleString("en") + " of the " + META.pairs.all.toLocaleString("en") +
        " pairs are in this report: the contested first (position bias, inconclusive, judges on both sides), then " +
        "the others in the pairs' order (`elotui report --max-pairs N` keeps more); the TUI's pairs pane and " +
        "`elotui verdicts` show every one. The rankings and charts cover every pair." }));
    }
    if (items.length) box.appendChild(el("ul", { class: "warnings" }, items));
    return box;
  }

  // --- the leaderboard, its forest plot and gaps ----------------------------------------------------------------
  function selectBox(id, label, values, current, onchange) {
    const s = el("select", { id: id, onchange: onchange }, values.map(function (v) {
      return el("option", { value: v[0], selected: v[0] === current, text: v[1] });
    }));
    return el("label", { for: id }, [label + " ", s]);
  }
  function leaderboardSection() {
    const s = section("leaderboard-s", "Leaderboard", "95 % bootstrap intervals. Gap bands: < 50 practically tied, " +
      "50-150 moderate, > 150 strong; order confidence: the share of bootstrap rounds with the row above the next.");
    const thresholds = META.thresholds.map(function (t) { return [t, t === "none" ? "none (every verdict)" : t]; });
    const methods = [["elo", "Elo (permutation-averaged)"], ["bt", "Bradley-Terry"]];
    s.appendChild(el("div", { class: "controls" }, [
      selectBox("threshold", "Agreement threshold", thresholds, state.threshold, function (e) { state.threshold = e.target.value; redrawBoard(); }),
      selectBox("method", "Method", methods, state.method, function (e) { state.method = e.target.value; redrawBoard(); }),
    ]));
    s.appendChild(el("div", { id: "board-area" }));
    return s;
  }
  function boardRows(b) {
    const extra = b.columns.indexOf("drop_to_flip") >= 0;
    return b.rows.map(function (r) {
      const tr = el("tr", { "data-contestant": r.contestant });
      const rank = el("td", { class: "rank", text: r.rank === null ? "–" : r.rank });
      const who = el("th", { scope: "row", class: "contestant", text: r.contestant });
      const bandCell = el("td", { class: "band" });
      if (r.band) {
        bandCell.appendChild(el("span", { class: "swatch", style: "background:" + BAND_COLOURS[r.band] }));
        bandCell.appendChild(document.createTextNode(r.band));
        if (r.band_range && r.band_range.length > 1) {
          bandCell.appendChild(el("span", { class: "small", title: "the gap's interval spans " + r.band_range.join(", "), text: " (spans " + r.band_range.length + " bands)" }));
        }
      }
      const bound = r.bound ? (r.bound === "lower" ? " ≥" : " ≤") : "";
      [rank, who].concat(cells([bound + num(r.rating, 1), r.ci_low === null ? "" : num(r.ci_low, 0) + " – " + num(r.ci_high, 0),
        num(r.gap_to_next, 1), r.gap_ci_low === null ? "" : num(r.gap_ci_low, 0) + " – " + num(r.gap_ci_high, 0),
        pct(r.win_prob_vs_next)]), [bandCell], cells([pct(r.order_confidence)]),
      extra ? cells([r.drop_to_flip === null ? "" : r.drop_to_flip]) : [],
      cells([r.wins + "–" + r.losses + "–" + r.draws, r.games, pct(r.win_rate)])).forEach(function (c) { tr.appendChild(c); });
      return tr;
    });
  }
  function niceStep(raw) {
    const p = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / p;
    return p * (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10);
  }
  function forestPlot(b) {
    const rows = b.rows.filter(function (r) { return r.rating !== null; });
    if (!rows.length) return el("p", { class: "note", text: "No contestant is rated in this view yet." });
    const lows = rows.map(function (r) { return r.ci_low === null ? r.rating : r.ci_low; });
    const highs = rows.map(function (r) { return r.ci_high === null ? r.rating : r.ci_high; });
    const lo = Math.min.apply(null, lows), hi = Math.max.apply(null, highs);
    const span = hi - lo || 1, W = 900, left = 120, right = 20, rowH = 26, H = rowH * rows.length + 40;
    const x = function (v) { return left + (v - lo + span * 0.05) / (span * 1.1) * (W - left - right); };
    const g = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img", "aria-labelledby": "forest-t", id: "forest" });
    g.appendChild(svg("title", { id: "forest-t" }, "Ratings with 95 % intervals (" + state.method + ", threshold " + state.threshold + ")"));
    rows.forEach(function (r, i) {
      const y = 20 + i * rowH;
      g.appendChild(svg("text", { x: left - 8, y: y + 4, "text-anchor": "end", class: "axis" }, r.contestant));
      g.appendChild(svg("line", { x1: x(lows[i]), x2: x(highs[i]), y1: y, y2: y, stroke: "#0072B2", "stroke-width": 2 }));
      g.appendChild(svg("circle", { cx: x(r.rating), cy: y, r: 4, fill: "#D55E00" }));
    });
    const step = niceStep(span * 1.1 / 8);
    for (let v = Math.ceil((lo - span * 0.05) / step) * step; v <= hi + span * 0.05; v += step) {
      g.appendChild(svg("line", { x1: x(v), x2: x(v), y1: 8, y2: H - 24, stroke: "#dddddd" }));
      g.appendChild(svg("text", { x: x(v), y: H - 8, "text-anchor": "middle", class: "axis" }, Math.round(v)));
    }
    return g;
  }
  function redrawBoard() {
    const b = board();
    const area = document.getElementById("board-area");
    area.replaceChildren();
    const header = ["Rank", "Contestant", "Rating", "95 % interval", "Gap to next", "Gap interval", "P(win vs next)", "Band",
      "Order confidence"].concat(b.columns.indexOf("drop_to_flip") >= 0 ? ["Drop to flip"] : []).concat(["W–L–D", "Games", "Win rate"]);
    const s = b.settings, style = s.style_control;
    area.appendChild(table("leaderboard", "Leaderboard: " + (s.method === "bt" ? "Bradley-Terry" : "Elo") +
      (style ? ", style-controlled (" + style.features.join(", ") + ")" : "") + ", threshold " +
      state.threshold + (META.scope ? ", " + META.scope : "") + ", " + b.counts.games + " games", header, boardRows(b)));
    if (style) {  // who wins when style is equal, and what each style feature is worth
      area.appendChild(el("p", { id: "style-control", class: "note", text: "Style control: the ratings say who wins " +
        "when style is equal. " + style.coefficients.map(function (c) { return c.text; }).join("; ") + "." }));
    }
    area.appendChild(el("figure", {}, [forestPlot(b), el("figcaption", { text: "Ratings (dots) with their 95 % intervals (lines)." })]));
    const old = document.getElementById("warnings");
    if (old) old.replaceWith(warningList());
    const sort = document.getElementById("f-sort");
    if (sort && sort.value === "rating gap") refilter();  // the closest ratings of the view shown
  }

  // --- head to head --------------------------------------------------------------------------------------------
  function headToHead() {
    const s = section("h2h-s", "Head to head", "Each cell: the row's share of its verdicts against the column (ties count half), " +
      "and its wins–losses. Orange: the row loses more, blue: it wins more.");
    const h = DATA.diagnose.head_to_head;
    if (!h) return s;
    const ids = h.contestants;
    const rows = ids.map(function (a, i) {
      return el("tr", {}, [el("th", { scope: "row", text: a })].concat(ids.map(function (b, j) {
        if (i === j) return el("td", { class: "diag", text: "" });
        const w = h.wins[i][j], l = h.wins[j][i], t = h.ties[i][j], n = w + l + t;
        const share = n ? (w + t / 2) / n : null;
        return el("td", { class: "heat", style: "background:" + diverging(share), title: a + " vs " + b,
          text: (share === null ? "–" : share.toFixed(2)) + " (" + w + "–" + l + ")" });
      })));
    });
    s.appendChild(table("h2h", "Row against column", [""].concat(ids), rows));
    return s;
  }

  // --- judges ----------------------------------------------------------------------------------------------------
  function interval(o, key) { return o ? num(o[key], 2) + " [" + num(o.ci_low, 2) + ", " + num(o.ci_high, 2) + "]" : ""; }
  function stackBar(p) {
    const bar = el("div", { class: "stack", role: "img", "aria-label": "consistent " + pct(p.consistent) + ", position bias " + pct(p.position_bias) + ", inconclusive " + pct(p.inconclusive) });
    [["consistent", "#009E73"], ["position_bias", "#D55E00"], ["inconclusive", "#BBBBBB"]].forEach(function (k) {
      bar.appendChild(el("span", { style: "width:" + (100 * (p[k[0]] || 0)).toFixed(1) + "%;background:" + k[1] }));
    });
    return bar;
  }
  function judgesSection() {
    const d = DATA.diagnose;
    const s = section("judges-s", "Judges", "Position bias per judge: of the pairs it judged in both orders, the share " +
      "where the same contestant won both (green), the same slot won both (vermilion: position bias) or a tie or " +
      "invalid reply left it open (grey).");
    const header = ["Judge", "Verdicts", "Consistent · position bias · inconclusive", "First slot wins", "Human accuracy",
      "Human κ", "Self-preference [95 %]", "Learned weight [95 %]", "First-slot advantage, Elo [95 %]"];
    const values = META.judges.map(function (j) {
      const r = (d.judges || {})[j.id];
      if (!r) return [j.id, "no verdicts", "", "", "", "", "", "", ""];
      const p = r.position, hum = r.human || {};
      const sp = d.self_preference && d.self_preference[j.id];
      const w = d.judge_weights && d.judge_weights.weights && d.judge_weights.weights[j.id];
      const pe = d.position_effect && d.position_effect[j.id];
      const bar = el("td", {}, [stackBar(p), el("span", { class: "small", text: pct(p.consistent) + " · " + pct(p.position_bias) + " · " + pct(p.inconclusive) })]);
      return [j.id, r.counts.verdicts_used, bar, pct(p.first_slot_share), hum.compared ? pct(hum.accuracy) : "",
        hum.compared ? num(hum.cohen_kappa, 2) : "",
        sp ? num(sp.difference, 3) + " [" + num(sp.ci_low, 3) + ", " + num(sp.ci_high, 3) + "]" : "",
        w ? interval(w, "weight") : "", pe ? num(pe.elo_points, 0) + " [" + num(pe.ci_low, 0) + ", " + num(pe.ci_high, 0) + "]" : ""];
    });
    // the columns with something to show (no human votes, no self-judging: no empty columns)
    const keep = header.map(function (_, i) { return i < 4 || values.some(function (v) { return v[i] !== ""; }); });
    const rows = values.map(function (v) {
      return el("tr", {}, v.filter(function (_, i) { return keep[i]; }).map(function (x, i) {
        return i === 0 ? el("th", { scope: "row", text: x }) : typeof x === "object" ? x : el("td", { text: x });
      }));
    });
    s.appendChild(table("judges", "Per judge", header.filter(function (_, i) { return keep[i]; }), rows));
    s.appendChild(kappaMatrix(d.agreement));
    s.appendChild(referenceTable(d));
    s.appendChild(goldTable(d.gold));
    return s;
  }
  function kappaMatrix(a) {
    const box = el("div", {});
    if (!a || !a.pairs) return box;
    const ids = META.judges.map(function (j) { return j.id; });
    const k = {};
    a.pairs.forEach(function (p) { k[p.judges[0] + "\u001f" + p.judges[1]] = p.cohen_kappa; k[p.judges[1] + "\u001f" + p.judges[0]] = p.cohen_kappa; });
    const rows = ids.map(function (x) {
      return el("tr", {}, [el("th", { scope: "row", text: x })].concat(ids.map(function (y) {
        const v = x === y ? null : k[x + "\u001f" + y];
        return el("td", { class: "heat", style: "background:" + diverging(v === null || v === undefined ? null : (v + 1) / 2), text: v === null || v === undefined ? "" : num(v, 2) });
      })));
    });
    box.appendChild(table("kappa", "Agreement between judges: Cohen's κ per pair of judges (Fleiss' κ of the panel: " +
      num(a.fleiss_kappa, 3) + ", " + a.items + " items)", [""].concat(ids), rows));
    return box;
  }
  function referenceTable(d) {
    const r = d.reference;
    const box = el("div", {});
    if (!r || !r.ranking) return box;
    const rows = META.thresholds.filter(function (t) { return r.by_threshold[t]; }).map(function (t) {
      const x = r.by_threshold[t];
      return el("tr", {}, [el("th", { scope: "row", text: t })].concat(cells([x.contestants, num(x.spearman_rho, 3), num(x.kendall_tau, 3)])));
    });
    box.appendChild(el("p", { text: "Reference (" + r.source + "): " + r.ranking.join(" > ") }));
    box.appendChild(table("reference", "Agreement of the ranking with the reference, per threshold (" + r.method + ")",
      ["Threshold", "Contestants", "Spearman ρ", "Kendall τ"], rows));
    return box;
  }
  function goldTable(g) {
    const box = el("div", {});
    if (!g || !g.by_judge) return box;
    const rows = Object.keys(g.by_judge).map(function (j) {
      const x = g.by_judge[j];
      return el("tr", {}, [el("th", { scope: "row", text: j })].concat(cells([x.planned, pct(x.accuracy_all), pct(x.accuracy_valid),
        pct(x.both_correct), pct(x.agreement), num(x.cohen_kappa, 3)])));
    });
    box.appendChild(table("gold", "Judges against the gold labels (" + g.labelled_pairs + " labelled pairs)",
      ["Judge", "Verdicts", "Accuracy", "Accuracy of valid verdicts", "Both orders correct", "Same winner in both orders", "κ with gold"], rows));
    return box;
  }

  // --- per-prompt tau --------------------------------------------------------------------------------------------
  function tauSection() {
    const t = DATA.diagnose.per_prompt_tau;
    const s = section("tau-s", "Per-prompt τ", "Kendall's τ between each prompt's own ranking and the overall one.");
    if (!t) return s;
    const values = (t.values || Object.values(t.by_prompt)).filter(function (v) { return v !== null; });
    const bins = new Array(10).fill(0);
    values.forEach(function (v) { bins[Math.min(9, Math.max(0, Math.floor((v + 1) / 0.2 + 1e-9)))] += 1; });
    const W = 640, H = 200, top = Math.max.apply(null, bins) || 1, bw = (W - 60) / 10;
    const g = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img", "aria-labelledby": "tau-t", id: "tau" });
    g.appendChild(svg("title", { id: "tau-t" }, "Histogram of per-prompt τ: " + values.length + " prompts, mean " + num(t.summary.mean, 3)));
    bins.forEach(function (n, i) {
      const h = (H - 50) * n / top;
      g.appendChild(svg("rect", { x: 40 + i * bw, y: H - 30 - h, width: bw - 2, height: h, fill: "#56B4E9" }));
      g.appendChild(svg("text", { x: 40 + i * bw + bw / 2, y: H - 34 - h, "text-anchor": "middle", class: "axis" }, n || ""));
      g.appendChild(svg("text", { x: 40 + i * bw, y: H - 12, "text-anchor": "middle", class: "axis" }, (-1 + i * 0.2).toFixed(1)));
    });
    g.appendChild(svg("text", { x: W - 20, y: H - 12, "text-anchor": "middle", class: "axis" }, "1.0"));
    s.appendChild(g);
    s.appendChild(el("p", { text: "Mean " + num(t.summary.mean, 3) + ", median " + num(t.summary.median, 3) + ", min " + num(t.summary.min, 3) + ", max " + num(t.summary.max, 3) + "." }));
    return s;
  }

  // --- pairs -----------------------------------------------------------------------------------------------------
  const COL = {};
  DATA.pair_columns.forEach(function (c, i) { COL[c] = i; });
  const V = {};
  DATA.verdict_fields.forEach(function (c, i) { V[c] = i; });
  function pkey(p) { return p[COL.prompt] + "\u001f" + p[COL.a] + "\u001f" + p[COL.b]; }
  let searchIndex = null;
  function buildIndex() {
    searchIndex = DATA.pairs.map(function (p) {
      const prompt = p[COL.prompt], r = DATA.responses[prompt] || {};
      const reasons = (DATA.verdicts[pkey(p)] || []).map(function (v) { return v[V.reasoning] || ""; }).join("\n");
      return [DATA.prompt_texts[prompt] || "", r[p[COL.a]] || "", r[p[COL.b]] || "", reasons].map(function (x) { return x.toLowerCase(); });
    });
  }
  // as the TUI's pairs pane: every word (or "quoted phrase") must appear in one of the pair's texts
  function termsOf(query) {
    const out = [], re = /"([^"]*)"?|(\S+)/g;
    let m;
    const q = query.toLowerCase();
    while ((m = re.exec(q)) !== null) {
      const t = (m[1] !== undefined ? m[1] : m[2]).split(/\s+/).filter(Boolean).join(" ");
      if (t) out.push(t);
    }
    return out;
  }
  function value(id) { const e = document.getElementById(id); return e.type === "checkbox" ? e.checked : e.value; }
  function pairMatches(p, i, terms) {
    const klass = value("f-class"), who = value("f-contestant"), cat = value("f-category"), fj = value("f-flipped");
    if (klass && p[COL.class] !== klass) return false;
    if (value("f-flip") && !p[COL.any_flip]) return false;
    if (value("f-split") && !(p[COL.judges_for_a] > 0 && p[COL.judges_for_b] > 0)) return false;
    if (value("f-dissent") && p[COL.dissenter] === null) return false;
    if (fj && p[COL.flipped_judges].indexOf(fj) < 0) return false;
    if (who && p[COL.a] !== who && p[COL.b] !== who) return false;
    if (cat && (META.categories[p[COL.prompt]] || "") !== cat) return false;
    if (terms.length) {
      const f = searchIndex[i];
      return terms.every(function (t) { return f.some(function (x) { return x.indexOf(t) >= 0; }); });
    }
    return true;
  }
  // the sorts of the TUI's pairs pane; ties in prompt order, then the pair's declaration order
  const SORTS = [["prompt", "by prompt"], ["disagreement", "most even split first"], ["flips", "most flips first"],
    ["rating gap", "closest ratings first"], ["length difference", "largest length difference first"]];
  const promptAt = {}, contestantAt = {};
  META.prompts.forEach(function (p, i) { promptAt[p] = i; });
  META.contestants.forEach(function (c, i) { contestantAt[c.id] = i; });
  const base = DATA.pairs.map(function (_, i) { return i; }).sort(function (x, y) {
    const p = DATA.pairs[x], q = DATA.pairs[y];
    return (promptAt[p[COL.prompt]] - promptAt[q[COL.prompt]]) || (contestantAt[p[COL.a]] - contestantAt[q[COL.a]]) ||
      (contestantAt[p[COL.b]] - contestantAt[q[COL.b]]);
  });
  const baseRank = new Array(base.length);
  base.forEach(function (pairIndex, rank) { baseRank[pairIndex] = rank; });
  function textLength(prompt, c) { const r = DATA.responses[prompt] || {}; return (r[c] || "").length; }
  function primary(sort) {
    const ratings = {};
    board().rows.forEach(function (r) { if (r.rating !== null) ratings[r.contestant] = r.rating; });
    return {
      "disagreement": function (p) {
        const a = p[COL.judges_for_a], b = p[COL.judges_for_b], split = a + b ? Math.min(a, b) / (a + b) : 0;
        return [-split, p[COL.agreement] === null ? 1 : p[COL.agreement]];
      },
      "flips": function (p) { return [-p[COL.position_bias]]; },
      "rating gap": function (p) {
        const a = ratings[p[COL.a]], b = ratings[p[COL.b]];
        return [a === undefined || b === undefined ? Infinity : Math.abs(a - b)];
      },
      "length difference": function (p) {
        return [-Math.abs(textLength(p[COL.prompt], p[COL.a]) - textLength(p[COL.prompt], p[COL.b]))];
      },
    }[sort];
  }
  function sorted(found, sort) {
    const key = primary(sort);
    if (!key) return found.sort(function (x, y) { return baseRank[x] - baseRank[y]; });
    const keys = {};
    found.forEach(function (i) { keys[i] = key(DATA.pairs[i]); });
    return found.sort(function (x, y) {
      const kx = keys[x], ky = keys[y];
      for (let n = 0; n < kx.length; n += 1) { if (kx[n] !== ky[n]) return kx[n] < ky[n] ? -1 : 1; }
      return baseRank[x] - baseRank[y];
    });
  }
  function selected() {
    const terms = termsOf(value("pair-search"));
    if (terms.length && !searchIndex) buildIndex();
    const out = [];
    DATA.pairs.forEach(function (p, i) { if (pairMatches(p, i, terms)) out.push(i); });
    return sorted(out, value("f-sort"));
  }
  function options(values, all) {
    return [el("option", { value: "", text: all })].concat(values.map(function (v) { return el("option", { value: v, text: v }); }));
  }
  function filterControl(id, label, values, all) {
    return el("label", { for: id }, [label + " ", el("select", { id: id, onchange: refilter }, options(values, all))]);
  }
  function check(id, label) {
    return el("label", { for: id, class: "check" }, [el("input", { type: "checkbox", id: id, onchange: refilter }), " " + label]);
  }
  function pairsSection() {
    const s = section("pairs-s", "Pairs", "Every (prompt, pair) with its stability class (counts: consistent·position bias·" +
      "inconclusive units). Choose a pair (Enter or click on its prompt) to see both responses, the AB/BA grid and each judge's reasoning.");
    const classes = [];
    DATA.pairs.forEach(function (p) { if (classes.indexOf(p[COL.class]) < 0) classes.push(p[COL.class]); });
    const cats = Array.from(new Set(Object.values(META.categories))).sort();
    s.appendChild(el("div", { class: "controls", role: "search" }, [
      el("label", { for: "pair-search" }, ["Search ", el("input", { id: "pair-search", type: "search", placeholder: "words or \"a phrase\"", oninput: refilter })]),
      filterControl("f-class", "Class", classes, "any class"),
      filterControl("f-contestant", "Contestant", META.contestants.map(function (c) { return c.id; }), "anyone"),
      filterControl("f-category", "Category", cats, "any category"),
      filterControl("f-flipped", "Judge flipped", META.judges.map(function (j) { return j.id; }), "any judge"),
      el("label", { for: "f-sort" }, ["Sort ", el("select", { id: "f-sort", onchange: refilter }, SORTS.map(function (x) { return el("option", { value: x[0], text: x[1] }); }))]),
      check("f-flip", "any judge flipped"), check("f-split", "judges split"), check("f-dissent", "one judge against the rest"),
    ]));
    s.appendChild(el("p", { id: "pair-count", role: "status" }));
    s.appendChild(el("div", { id: "pair-table" }));
    s.appendChild(el("div", { class: "pager" }, [
      el("button", { type: "button", id: "prev", text: "← previous", onclick: function () { state.page -= 1; drawPairs(); } }),
      el("span", { id: "page-no" }),
      el("button", { type: "button", id: "next", text: "next →", onclick: function () { state.page += 1; drawPairs(); } }),
    ]));
    s.appendChild(el("div", { id: "pair-detail", "aria-live": "polite" }));
    return s;
  }
  function refilter() { state.page = 0; state.found = null; drawPairs(); }
  function drawPairs() {
    if (state.found === null) state.found = selected();
    const found = state.found, pages = Math.max(1, Math.ceil(found.length / PAGE_SIZE));
    state.page = Math.max(0, Math.min(state.page, pages - 1));
    const cut = META.pairs && META.pairs.kept < META.pairs.all ? " kept (" + META.pairs.all.toLocaleString("en") + " in all)" : "";
    document.getElementById("pair-count").textContent = found.length + " of " + DATA.pairs.length + " pairs" + cut;
    document.getElementById("page-no").textContent = " page " + (state.page + 1) + " of " + pages + " ";
    document.getElementById("prev").disabled = state.page === 0;
    document.getElementById("next").disabled = state.page >= pages - 1;
    const rows = found.slice(state.page * PAGE_SIZE, (state.page + 1) * PAGE_SIZE).map(function (i) {
      const p = DATA.pairs[i];
      const open = el("button", { type: "button", class: "link", text: p[COL.prompt], onclick: function () { showPair(i); } });
      return el("tr", { "data-prompt": p[COL.prompt], "data-a": p[COL.a], "data-b": p[COL.b] }, [el("td", {}, [open])].concat(cells([
        META.categories[p[COL.prompt]] || "", p[COL.a], p[COL.b], p[COL.class],
        p[COL.consistent] + "·" + p[COL.position_bias] + "·" + p[COL.inconclusive], p[COL.flipped_judges].join(", "),
        p[COL.judges_for_a] + " : " + p[COL.judges_for_b], pct(p[COL.agreement]), p[COL.preference] || ""])));
    });
    const area = document.getElementById("pair-table");
    area.replaceChildren(table("pairs", "Pairs (" + PAGE_SIZE + " a page)", ["Prompt", "Category", "A", "B", "Class",
      "Units c·p·i", "Flipped", "Judges for A : B", "Agreement", "Preferred"], rows));
  }
  function showPair(i) {
    const p = DATA.pairs[i], prompt = p[COL.prompt], a = p[COL.a], b = p[COL.b];
    const r = DATA.responses[prompt] || {}, verdicts = DATA.verdicts[pkey(p)] || [];
    const box = document.getElementById("pair-detail");
    box.replaceChildren();
    box.appendChild(el("h3", { id: "detail-h", tabindex: "-1", text: prompt + ": " + a + " vs " + b + " (" + p[COL.class] + ")" }));
    const earlier = (DATA.conversations || {})[prompt] || [], judged = earlier.length + 1;
    if (earlier.length) {  // a conversation: each earlier user turn, then both answers to it; then the judged turn
      box.appendChild(el("p", { class: "note", text: "A conversation of " + judged + " turns: each user turn, then both contestants' answers to it; the answers to turn " + judged + " are judged." }));
      earlier.forEach(function (e, n) {
        box.appendChild(el("h4", { text: "User, turn " + (n + 1) }));
        box.appendChild(el("pre", { class: "text turn-user", "data-turn": n + 1, text: e.user }));
        box.appendChild(el("div", { class: "responses" }, [[a, "A"], [b, "B"]].map(function (x) {
          const said = e.answers[x[0]];
          return el("div", { class: "response" }, [el("h4", { text: x[1] + ": " + name(x[0]) + ", turn " + (n + 1) }),
            el("pre", { class: "text turn-answer", "data-turn": n + 1, "data-answer-of": x[0], text: said === undefined ? "(no answer in the data)" : said })]);
        })));
      });
      box.appendChild(el("h4", { text: "User, turn " + judged + " (judged)" }));
    }
    const turn = earlier.length ? ", turn " + judged + " (judged)" : "";
    box.appendChild(el("pre", { class: "text prompt", text: DATA.prompt_texts[prompt] || "" }));
    box.appendChild(el("div", { class: "responses" }, [[a, "A"], [b, "B"]].map(function (x) {
      return el("div", { class: "response" }, [el("h4", { text: x[1] + ": " + name(x[0]) + turn }),
        el("pre", { class: "text", "data-contestant": x[0], text: r[x[0]] === null || r[x[0]] === undefined ? "(no response recorded)" : r[x[0]] })]);
    })));
    box.appendChild(grid(verdicts, a, b));
    box.appendChild(el("h4", { text: "Each judge's reasoning (open one to read it)" }));
    box.appendChild(el("div", { class: "reasons" }, verdicts.map(function (v) {
      const order = v[V.first] === a ? "AB" : "BA";
      return el("details", { class: "reason" }, [el("summary", { text: v[V.judge] + " · " + order + " order · " + v[V.condition] + (v[V.sample] ? " · sample " + v[V.sample] : "") + " · " + verdictText(v, a, b) }),
        el("pre", { class: "text", text: v[V.reasoning] || "(no reasoning)" })]);
    })));
    document.getElementById("detail-h").focus();
  }
  function verdictText(v, a, b) {
    if (v[V.status] !== "ok") return v[V.status];
    if (v[V.winner] === "tie" || v[V.winner] === null) return "tie";
    const second = v[V.first] === a ? b : a;
    const who = v[V.winner] === "first" || v[V.winner] === "A" ? v[V.first] : v[V.winner] === "second" || v[V.winner] === "B" ? second : v[V.winner];
    const grade = gradeText(v);
    return who + " wins" + (grade ? " (" + grade + ")" : "");
  }
  function gradeText(v) {  // a graded verdict as the judge gave it, A the response shown first: "A>>B, strong"
    const s = v[V.strength], first = v[V.winner] === "first";
    if (s !== 1 && s !== 2) return "";
    return (first ? "A" : "B") + (s === 2 ? ">>" : ">") + (first ? "B" : "A") + (s === 2 ? ", strong" : "");
  }
  function grid(verdicts, a, b) {
    const units = {}, keys = [];
    verdicts.forEach(function (v) {
      const k = v[V.judge] + " · " + v[V.condition] + (v[V.sample] ? " · " + v[V.sample] : "");
      if (!units[k]) { units[k] = {}; keys.push(k); }
      units[k][v[V.first] === a ? "AB" : "BA"] = verdictText(v, a, b);
    });
    const rows = keys.map(function (k) { return el("tr", {}, [el("th", { scope: "row", text: k })].concat(cells([units[k].AB || "–", units[k].BA || "–"]))); });
    return table("grid", "Each judge's verdict in both orders", ["Judge", "AB (" + a + " shown first)", "BA (" + b + " shown first)"], rows);
  }

  // --- provenance ------------------------------------------------------------------------------------------------
  function provenanceSection() {
    const p = DATA.provenance;
    const s = section("provenance-s", "Provenance");
    const facts = [["elotui", p.elotui_version], ["Tournament file", p.tournament_file.path], ["Its SHA-256", p.tournament_file.sha256],
      ["Store", p.store.path], ["Report written", p.exported_at]];
    Object.keys(p.data_files || {}).forEach(function (f) {
      const v = p.data_files[f];
      facts.push(["Data file " + f, typeof v === "string" ? v : JSON.stringify(v)]);
    });
    s.appendChild(el("dl", {}, [].concat.apply([], facts.map(function (f) { return [el("dt", { text: f[0] }), el("dd", { text: f[1] })]; }))));
    const judges = Object.keys(p.judges).map(function (j) {
      const x = p.judges[j];
      const rest = Object.keys(x).filter(function (k) { return ["id", "label", "provider", "model"].indexOf(k) < 0; });
      const settings = rest.map(function (k) { return k + " = " + (typeof x[k] === "string" ? x[k] : JSON.stringify(x[k])); }).join("; ");
      return el("tr", {}, [el("th", { scope: "row", text: j })].concat(cells([x.provider, x.model || "", settings])));
    });
    s.appendChild(table("provenance-judges", "Judges and their settings (no keys)", ["Judge", "Provider", "Model", "Settings"], judges));
    const when = function (t) { return typeof t === "number" ? new Date(t * 1000).toISOString().replace(".000", "") : ""; };
    const runs = (p.store.runs || []).map(function (r) {
      const rest = Object.keys(r).filter(function (k) { return ["id", "state", "started_at", "finished_at"].indexOf(k) < 0; });
      return el("tr", {}, cells([r.id, r.state, when(r.started_at), when(r.finished_at),
        rest.map(function (k) { return k + " = " + JSON.stringify(r[k]); }).join("; ")]));
    });
    s.appendChild(table("runs", "Runs recorded in the store", ["Run", "State", "Started", "Finished", "More"], runs));
    const st = board().settings;
    const iv = st.interval || {};
    s.appendChild(el("p", { class: "note", text: "Ranking settings: seed " + st.seed + ", K " + st.k_factor + ", " + st.permutations +
      " Elo orders; intervals: " + iv.kind + " by " + iv.unit + ", level " + iv.level + ", " + iv.rounds + " rounds (Bradley-Terry: " + (DATA.boards["bt|" + state.threshold].settings.bootstrap) + ")." }));
    return s;
  }

  const app = document.getElementById("app");
  app.appendChild(header());
  app.appendChild(warningList());
  app.appendChild(leaderboardSection());
  app.appendChild(headToHead());
  app.appendChild(judgesSection());
  app.appendChild(tauSection());
  app.appendChild(pairsSection());
  app.appendChild(provenanceSection());
  redrawBoard();
  drawPairs();
  document.body.setAttribute("data-ready", "1");
})();
