/* SPDX-License-Identifier: MIT */
/*
 * The dashboard's live plots: gpuisoPlot(el) draws, with uPlot, the data
 * bench/dash_plot.c wrote in el's data-plot attribute, into el, and hides
 * the static chart before el (kept for pages read without JavaScript).
 * Values on hover (the legend), drag to zoom, double-click to zoom out.
 *
 * data-plot: {unit, xname, log, stacked, width, height, x (or null: 0 ..
 * n-1), xlabels, xinfo (or null), lines: [{label, color, y, dashed,
 * points}], marks: [{at, color}]}; a mark is a dashed vertical line before
 * x index at (a change). Stacked lines are bars, each drawn on the ones
 * before it; the legend says each line's own value.
 */
function gpuisoPlot(el) {
	var d = JSON.parse(el.getAttribute('data-plot'));
	var fixed = el.previousElementSibling;
	var x = d.x || d.xlabels.map(function (_, i) { return i; });
	var unit = d.unit ? ' ' + d.unit : '';
	var below = x.map(function () { return 0; });
	var data = [], series = [];

	d.lines.forEach(function (l) {
		var s = {
			label: l.label, stroke: l.color,
			value: function (u, v, si, i) {
				return i == null || l.y[i] == null ? '' : l.y[i].toLocaleString() + unit;
			}
		};

		data.push(l.y.map(function (v, i) {
			if (d.stacked)
				return (below[i] += v || 0);
			return d.log && !(v > 0) ? null : v;
		}));
		if (l.dashed)
			s.dash = [6, 4];
		if (l.points) {
			s.paths = function () { return null; };
			s.points = { show: true, size: 5 };
		} else if (d.stacked) {
			s.fill = l.color;
			s.paths = uPlot.paths.bars({ size: [0.7, 60] });
			s.points = { show: false };
		} else {
			s.width = 2;
		}
		series.push(s);
	});
	if (d.stacked) {
		/* the highest sums first: each bar drawn over the taller one behind it */
		data.reverse();
		series.reverse();
	}
	data.unshift(x);
	series.unshift({
		label: d.xname,
		value: function (u, v, si, i) {
			return i == null ? '' : d.xlabels[i] + (d.xinfo && d.xinfo[i] ? ' (' + d.xinfo[i] + ')' : '');
		}
	});

	var xscale = { time: false }, yscale = {};
	var xaxis = {
		values: function (u, ticks) {
			return ticks.map(function (t) { var i = x.indexOf(t); return i < 0 ? '' : d.xlabels[i]; });
		}
	};

	if (d.x || d.stacked)
		xaxis.splits = function () { return x; }; /* a tick at each value, none between */

	if (d.stacked) {
		xscale.range = function (u, lo, hi) { return [lo - 0.5, hi + 0.5]; };
		yscale.range = function (u, lo, hi) { return [0, hi > 0 ? hi * 1.05 : 1]; };
	} else if (d.log) {
		yscale.distr = 3;
	}
	var opts = {
		width: Math.min(d.width, el.parentNode.clientWidth || d.width),
		height: d.height,
		series: series,
		scales: { x: xscale, y: yscale },
		axes: [xaxis, { label: d.unit, size: 80 }],
		hooks: {
			draw: [function (u) {
				var c = u.ctx;

				d.marks.forEach(function (m) {
					var px = Math.round(u.valToPos(m.at - 0.5, 'x', true));

					c.save();
					c.strokeStyle = m.color;
					c.lineWidth = 2;
					c.setLineDash([6, 4]);
					c.beginPath();
					c.moveTo(px, u.bbox.top);
					c.lineTo(px, u.bbox.top + u.bbox.height);
					c.stroke();
					c.restore();
				});
			}]
		}
	};

	new uPlot(opts, data, el);
	if (fixed && fixed.tagName.toLowerCase() === 'svg')
		fixed.style.display = 'none';
	document.body.setAttribute('data-plots', +(document.body.getAttribute('data-plots') || 0) + 1);
}
