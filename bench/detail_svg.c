// SPDX-License-Identifier: MIT
#include "detail_svg.h"
#include "rows.h"
#include "work_kind.h"

#include <errno.h>
#include <math.h>

/* A label's text with the XML specials escaped. */
static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
}

struct bar_row {
	const char *name;
	double before_ns, after_ns;
};

/* The events of the largest time on either side, at most DETAIL_SVG_EVENTS. */
static unsigned int top_events(const struct ptsim_overlap_prediction *b,
			       const struct ptsim_overlap_prediction *a, struct bar_row *out)
{
	bool taken[PTSIM_EV__COUNT] = { false };
	unsigned int n = 0;

	while (n < DETAIL_SVG_EVENTS) {
		int best = -1;

		for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
			if (!taken[e] && fmax(b->event_ns[e], a->event_ns[e]) > 0 &&
			    (best < 0 || fmax(b->event_ns[e], a->event_ns[e]) >
					 fmax(b->event_ns[best], a->event_ns[best])))
				best = (int)e;
		if (best < 0)
			break;
		taken[best] = true;
		out[n++] = (struct bar_row){ ptsim_event_name((enum ptsim_event)best),
					     b->event_ns[best], a->event_ns[best] };
	}
	return n;
}

int detail_svg_write(FILE *f, const char *id, const char *before_label, const char *after_label,
		     const struct ptsim_overlap_prediction *b,
		     const struct ptsim_overlap_prediction *a)
{
	struct bar_row rows[WORK__COUNT + 2 + DETAIL_SVG_EVENTS];
	double kb[WORK__COUNT], ka[WORK__COUNT], max = 0;
	const int left = 260, plot_w = 560, row_h = 34, top = 90;
	unsigned int n = 0, kinds;
	int height, err;

	work_kind_sums(b, kb);
	work_kind_sums(a, ka);
	rows[n++] = (struct bar_row){ "total", b->total_ns, a->total_ns };
	for (unsigned int k = 0; k < WORK__COUNT; k++)
		if (kb[k] > 0 || ka[k] > 0)
			rows[n++] = (struct bar_row){ work_kind_name((enum work_kind)k), kb[k], ka[k] };
	kinds = n;
	n += top_events(b, a, rows + n);
	for (unsigned int i = 0; i < n; i++)
		max = fmax(max, fmax(rows[i].before_ns, rows[i].after_ns));
	if (max <= 0)
		max = 1;
	height = top + (int)n * row_h + 40 + 24;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "font-family=\"sans-serif\" font-size=\"12\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		   "<text x=\"10\" y=\"22\" font-size=\"15\">", left + plot_w + 120, height);
	xml_text(f, id);
	fprintf(f, ": predicted time (ms), by kind of work, then the %d events of the largest "
		   "time</text>\n<rect x=\"10\" y=\"36\" width=\"12\" height=\"12\" fill=\"#3366cc\"/>"
		   "<text x=\"28\" y=\"47\">", DETAIL_SVG_EVENTS);
	xml_text(f, before_label);
	fputs("</text>\n<rect x=\"10\" y=\"56\" width=\"12\" height=\"12\" fill=\"#e08a1e\"/>"
	      "<text x=\"28\" y=\"67\">", f);
	xml_text(f, after_label);
	fputs("</text>\n", f);
	for (unsigned int i = 0; i < n; i++) {
		int y = top + (int)i * row_h + (i >= kinds ? 20 : 0);
		int wb = (int)lround(rows[i].before_ns / max * plot_w);
		int wa = (int)lround(rows[i].after_ns / max * plot_w);

		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 8, y + 17);
		xml_text(f, rows[i].name);
		fprintf(f, "</text>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"13\" fill=\"#3366cc\"/>"
			   "<text x=\"%d\" y=\"%d\" font-size=\"10\">%.3f</text>\n", left, y + 2, wb,
			left + wb + 4, y + 12, rows[i].before_ns / 1e6);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"13\" fill=\"#e08a1e\"/>"
			   "<text x=\"%d\" y=\"%d\" font-size=\"10\">%.3f</text>\n", left, y + 16, wa,
			left + wa + 4, y + 26, rows[i].after_ns / 1e6);
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", left, top - 4,
		left, top + (int)n * row_h + 20);
	fputs("</svg>\n", f);
	err = ferror(f) ? errno : 0;
	if (fclose(f) && !err)
		err = errno;
	errno = err;
	return err ? -1 : 0;
}
