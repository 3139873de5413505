// cachewise: click a header of a `table.sortable` to sort its rows (numbers
// by value, text alphabetically); click again to reverse. Nothing else.
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
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("table.sortable").forEach(function (table) {
      if (!table.tHead || !table.tBodies.length) { return; }
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
        var dir = -1;
        th.title = "Sort";
        th.addEventListener("click", function () { dir = -dir; sortBy(table, col, dir); });
      });
    });
  });
})();
