// cachewise: click a header of a `table.sortable` to sort its rows (numbers
// by value, text alphabetically); click again to reverse. The Now panel's
// countdowns tick every second (on the server's clock), and the page swaps
// in its new content when the server's data changes (server-sent events
// from /events; reconnects quietly when the server goes away). With the
// fragment #text-size the page writes the size of its smallest visible text,
// in screen pixels (SVG text scaled as drawn), on <html data-min-text-px>:
// what the browser test checks at a narrow window.
"use strict";
(function () {
  function value(cell) {
    var t = cell.textContent.trim();
    var m = /^<?-?\$?([0-9][0-9,]*\.?[0-9]*)(k|M|%)?$/.exec(t);
    if (!m) { return t.toLowerCase(); }
    var n = parseFloat(m[1].replace(/,/g, ""));
    if (m[2] === "k") { n *= 1e3; } else if (m[2] === "M") { n *= 1e6; }
    return t.charAt(0) === "-" ? -n : n;
  }
  function sortBy(table, col, dir) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = value(a.cells[col]), y = value(b.cells[col]);
      if (x === y) { return 0; }
      return (x < y ? -1 : 1) * dir;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  function span(s) {
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), x = s % 60;
    var two = function (n) { return (n < 10 ? "0" : "") + n; };
    return h > 0 ? h + ":" + two(m) + ":" + two(x) : m + ":" + two(x);
  }
  var skew = null;
  function tick() {
    var panel = document.getElementById("now");
    if (!panel) { return; }
    if (skew === null) { skew = Date.now() - Number(panel.getAttribute("data-now")); }
    var now = Date.now() - skew;
    panel.querySelectorAll(".countdown").forEach(function (el) {
      var left = Math.round((Number(el.getAttribute("data-expires")) - now) / 1000);
      el.textContent = left >= 0 ? span(left) + " left" : "cold " + span(-left);
      el.className = "countdown " + (left >= 0 ? "warm" : "cold");
    });
  }
  function swap(version) {
    fetch(window.location.href, { credentials: "same-origin" }).then(function (r) {
      return r.ok ? r.text() : null;
    }).then(function (html) {
      if (!html) { setTimeout(listen, 5000); return; }
      var doc = new DOMParser().parseFromString(html, "text/html");
      var fresh = doc.querySelector("main"), main = document.querySelector("main");
      if (!fresh || !main) { setTimeout(listen, 5000); return; }
      main.innerHTML = fresh.innerHTML;
      main.setAttribute("data-version", version);
      skew = null;
      newestInView();
      tick();
      sortable();
      listen();
    }).catch(function () { setTimeout(listen, 5000); });
  }
  function listen() {
    var main = document.querySelector("main[data-version]");
    if (!main || !window.EventSource) { return; }
    var es = new EventSource("/events?v=" + encodeURIComponent(main.getAttribute("data-version")));
    es.addEventListener("update", function (e) {
      if (e.data !== main.getAttribute("data-version")) { es.close(); swap(e.data); }
    });
    es.onerror = function () {
      if (es.readyState === 2) { setTimeout(listen, 5000); }
    };
  }
  function sortable() {
    document.querySelectorAll("table.sortable").forEach(function (table) {
      if (!table.tHead || !table.tBodies.length) { return; }
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
        var dir = -1;
        th.title = "Sort";
        th.addEventListener("click", function () { dir = -dir; sortBy(table, col, dir); });
      });
    });
  }
  // A chart wider than its column opens at its right end, where the
  // newest bar is.
  function newestInView() {
    document.querySelectorAll("figure.chart").forEach(function (f) { f.scrollLeft = f.scrollWidth; });
  }
  // What a narrow window hides: the scrolling boxes whose right end is out
  // of view (for the browser test, with #text-size).
  function clipped() {
    var out = [];
    document.querySelectorAll(".table-scroll, figure.chart").forEach(function (el) {
      if (el.scrollLeft + el.clientWidth < el.scrollWidth - 1) {
        var t = el.querySelector("table");
        out.push(el.tagName.toLowerCase() + (t && t.className ? "/" + t.className.split(" ").join(".") : ""));
      }
    });
    return out.join(" ");
  }
  function textSize() {
    if (window.location.hash !== "#text-size") { return; }
    document.documentElement.setAttribute("data-clipped", clipped());
    var min = Infinity, at = "";
    var walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    var node;
    while ((node = walk.nextNode())) {
      var el = node.parentElement;
      if (!el || !node.textContent.trim() || el.closest("title")) { continue; }
      var style = window.getComputedStyle(el);
      if (style.display === "none" || style.visibility === "hidden" || el.getClientRects().length === 0) { continue; }
      var px = parseFloat(style.fontSize);
      if (el.ownerSVGElement && el.getScreenCTM) {
        var m = el.getScreenCTM();
        if (m) { px *= Math.sqrt(m.a * m.a + m.b * m.b); }
      }
      if (px < min) { min = px; at = node.textContent.trim().slice(0, 60); }
    }
    document.documentElement.setAttribute("data-min-text-px", min === Infinity ? "none" : min.toFixed(2));
    document.documentElement.setAttribute("data-min-text-at", at);
  }
  document.addEventListener("DOMContentLoaded", function () {
    newestInView();
    textSize();
    sortable();
    tick();
    setInterval(tick, 1000);
    listen();
  });
})();
