/* flame.c: a flame graph drawn from a profile's folded stacks (the JSON profile's "stacks"),
 * as SVG: one frame a box as wide as its samples, callers below callees, one colour family
 * per side (client warm, server blue, softirq and other green, idle grey), a hover title with
 * samples and percent, click to zoom, and a search that marks the frames whose name matches
 * and says what share of the samples they hold. No flamegraph.pl: Debian ships none.
 * It reads JSON and writes SVG; it runs nothing.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "report/out.h"

#define FG_WIDTH 1200.0 /* frames' width, px */
#define FG_PAD 10.0
#define FG_ROW 17.0
#define FG_TOP 56.0 /* title, subtitle, controls */
#define FG_BOTTOM 28.0 /* the details line */
#define FG_MIN_PX 0.25 /* narrower frames are not drawn */

#define FG_MAX_DEPTH 512 /* frames of a stack drawn; deeper ones are cut (and said) */
#define FG_MAX_DEPTH_TEXT "512"

struct fnode {
	char *name;
	double v;
	struct fnode *child, *next, *hnext; /* hnext: the hash chain */
	const struct fnode *parent;
};

/* Every node of a graph (freed, sorted and counted by walking this, not the tree: a file's
 * stack may be as deep as it likes) and a hash of (parent, name) for finding a child in
 * constant time (a file's node may have as many children as it likes). */
struct ftree {
	struct fnode root;
	struct fnode **all, **hash;
	size_t n, cap, nhash;
	int depth; /* rows, the root's included */
	bool cut;  /* a stack was deeper than FG_MAX_DEPTH */
};

static size_t fnode_hash(const struct fnode *parent, const char *name, size_t len)
{
	return (size_t)hash_bytes((uint64_t)(uintptr_t)parent, name, len);
}

static void ftree_rehash(struct ftree *t)
{
	size_t nh = t->nhash ? 2 * t->nhash : 1024;
	struct fnode **h = xcalloc(nh, sizeof(*h));

	for (size_t i = 0; i < t->n; i++) {
		struct fnode *n = t->all[i];
		size_t k = fnode_hash(n->parent, n->name, strlen(n->name)) & (nh - 1);

		n->hnext = h[k];
		h[k] = n;
	}
	free(t->hash);
	t->hash = h;
	t->nhash = nh;
}

static struct fnode *fnode_child(struct ftree *t, struct fnode *p, const char *name, size_t len)
{
	size_t k = t->nhash ? fnode_hash(p, name, len) & (t->nhash - 1) : 0;

	for (struct fnode *c = t->nhash ? t->hash[k] : NULL; c; c = c->hnext)
		if (c->parent == p && strlen(c->name) == len && !memcmp(c->name, name, len))
			return c;
	struct fnode *n = xcalloc(1, sizeof(*n));

	n->name = xmalloc(len + 1);
	memcpy(n->name, name, len);
	n->name[len] = 0;
	n->parent = p;
	n->next = p->child; /* order does not matter: fnode_sort orders the children */
	p->child = n;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->all = xrealloc(t->all, t->cap * sizeof(*t->all));
	}
	t->all[t->n++] = n;
	if (t->n > t->nhash / 2) {
		ftree_rehash(t);
	} else {
		n->hnext = t->hash[k];
		t->hash[k] = n;
	}
	return n;
}

static void ftree_free(struct ftree *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->all[i]->name);
		free(t->all[i]);
	}
	free(t->all);
	free(t->hash);
}

static int side_rank(const char *name)
{
	static const char *const order[] = {"client", "server", "other", "idle"};

	for (int i = 0; i < 4; i++)
		if (!strcmp(name, order[i]))
			return i;
	return 4;
}

static int cmp_node(const void *a, const void *b)
{
	const struct fnode *x = *(const struct fnode *const *)a, *y = *(const struct fnode *const *)b;

	return strcmp(x->name, y->name);
}

static int cmp_side(const void *a, const void *b)
{
	const struct fnode *x = *(const struct fnode *const *)a, *y = *(const struct fnode *const *)b;
	int d = side_rank(x->name) - side_rank(y->name);

	return d ? d : strcmp(x->name, y->name);
}

/* One node's children in name order (the sides in their own), as flamegraph.pl orders them. */
static void fnode_sort(struct fnode *n, bool sides)
{
	size_t k = 0, i = 0;

	for (struct fnode *c = n->child; c; c = c->next)
		k++;
	if (k < 2)
		return;
	struct fnode **v = xmalloc(k * sizeof(*v));

	for (struct fnode *c = n->child; c; c = c->next)
		v[i++] = c;
	qsort(v, k, sizeof(*v), sides ? cmp_side : cmp_node);
	for (i = 0; i + 1 < k; i++)
		v[i]->next = v[i + 1];
	v[k - 1]->next = NULL;
	n->child = v[0];
	free(v);
}

/* Every node's children sorted: each node once, by the list of all. */
static void ftree_sort(struct ftree *t)
{
	fnode_sort(&t->root, true);
	for (size_t i = 0; i < t->n; i++)
		fnode_sort(t->all[i], false);
}

/* One folded stack ("a;b;c") of n samples added along its path, at most FG_MAX_DEPTH deep. */
static void ftree_add(struct ftree *t, const char *s, double n)
{
	struct fnode *at = &t->root;
	int d = 1;

	t->root.v += n;
	for (const char *p = s;; d++) {
		const char *semi = strchr(p, ';');
		size_t len = semi ? (size_t)(semi - p) : strlen(p);

		if (d > FG_MAX_DEPTH) {
			t->cut = true;
			break;
		}
		at = fnode_child(t, at, p, len);
		at->v += n;
		if (!semi)
			break;
		p = semi + 1;
	}
	d = (d > FG_MAX_DEPTH ? FG_MAX_DEPTH : d) + 1; /* rows: the frames and the root */
	t->depth = d > t->depth ? d : t->depth;
}

/* A colour of the side's family, varied by the name so neighbours differ. */
static void frame_colour(char *out, size_t cap, int side, const char *name)
{
	uint32_t h = 2166136261u;

	for (const char *c = name; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	double v = (double)(h % 1000) / 1000.0;
	bool user = !strncmp(name, "[user]", 6);

	switch (side) {
	case 0: /* client: red to orange */
		snprintf(out, cap, "hsl(%.0f,%d%%,%.0f%%)", 5 + 40 * v, user ? 60 : 85, 52 + 12 * v);
		break;
	case 1: /* server: blue */
		snprintf(out, cap, "hsl(%.0f,%d%%,%.0f%%)", 195 + 40 * v, user ? 45 : 70, 58 + 12 * v);
		break;
	case 2: /* softirq and other kernel work: green */
		snprintf(out, cap, "hsl(%.0f,%d%%,%.0f%%)", 80 + 55 * v, 55, 50 + 12 * v);
		break;
	case 3: /* idle */
		snprintf(out, cap, "hsl(0,0%%,%.0f%%)", 68 + 14 * v);
		break;
	default:
		snprintf(out, cap, "hsl(45,10%%,80%%)");
	}
}

/* The label that fits width px at about 7 px a character ("" when not even 3 fit). */
static void frame_label(FILE *f, const char *name, double width)
{
	size_t fit = width > 6 ? (size_t)((width - 6) / 7.0) : 0, len = strlen(name);

	if (fit < 3)
		return;
	if (len <= fit) {
		html_text(f, name);
		return;
	}
	char *cut = xmalloc(fit + 1);

	memcpy(cut, name, fit - 2);
	memcpy(cut + fit - 2, "..", 3);
	html_text(f, cut);
	free(cut);
}

struct fg {
	FILE *f;
	double total;
	int depth; /* rows */
	double height;
};

/* One frame; false when it is too narrow to draw (and so are its children). */
static bool draw_one(const struct fg *g, const struct fnode *n, double x, int depth, int side)
{
	double w = n->v / g->total * FG_WIDTH, px = FG_PAD + x / g->total * FG_WIDTH;
	double y = g->height - FG_BOTTOM - (depth + 1) * FG_ROW;
	char col[48];

	if (w < FG_MIN_PX)
		return false;
	frame_colour(col, sizeof(col), depth ? side : -1, n->name);
	html_printf(g->f, "<g class=\"f\" data-x=\"%.9g\" data-w=\"%.9g\" data-d=\"%d\" "
			  "data-s=\"%.0f\" data-n=\"%s\"><title>%s (%.0f samples, %.2f%%)</title>"
			  "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" rx=\"2\" "
			  "fill=\"%s\"/><text x=\"%.2f\" y=\"%.1f\">",
		    x / g->total, n->v / g->total, depth, n->v, n->name, n->name, n->v,
		    100.0 * n->v / g->total, px, y, w > 1 ? w - 0.5 : w, FG_ROW - 1, col, px + 3,
		    y + FG_ROW - 5);
	frame_label(g->f, n->name, w);
	html_printf(g->f, "</text></g>\n");
	return true;
}

/* The frames in depth-first order, callers before callees, with a stack of where each level
 * is in its list of children (as deep as the graph's rows: no recursion). */
static void draw(const struct fg *g, const struct fnode *root)
{
	struct level {
		const struct fnode *next; /* the next child to draw */
		double x;		  /* where it starts */
		int side;
	} *st = xmalloc(((size_t)g->depth + 1) * sizeof(*st));
	int top = 0;

	if (draw_one(g, root, 0, 0, -1))
		st[top++] = (struct level){root->child, 0, -1};
	while (top) {
		struct level *l = &st[top - 1];
		const struct fnode *c = l->next;

		if (!c || top > g->depth) {
			top--;
			continue;
		}
		double x = l->x;
		int side = top == 1 ? side_rank(c->name) : l->side;

		l->next = c->next;
		l->x += c->v;
		if (draw_one(g, c, x, top, side))
			st[top++] = (struct level){c->child, x, side};
	}
	free(st);
}

/* The script behind zoom and search: one copy a page (or a standalone SVG), for every flame
 * graph in it. Frames keep their place as fractions of the whole (data-x, data-w), their
 * depth (data-d), samples (data-s) and name (data-n). */
static const char flame_js[] =
	"(function(){\n"
	"if (window.sbFlame) return;\n"
	"var W=1200, P=10;\n"
	"function fit(n,w){var k=Math.floor((w-6)/7); if(k<3) return ''; return n.length<=k?n:n.slice(0,k-2)+'..';}\n"
	"function num(e,a){return parseFloat(e.getAttribute(a));}\n"
	"function frames(svg){return Array.prototype.slice.call(svg.querySelectorAll('g.f'));}\n"
	"function place(e,nx,nw){var r=e.querySelector('rect'),t=e.querySelector('text');"
	"var w=nw*W; r.setAttribute('x',(P+nx*W).toFixed(2)); r.setAttribute('width',Math.max(w-0.5,0.1).toFixed(2));"
	"t.setAttribute('x',(P+nx*W+3).toFixed(2)); t.textContent=fit(e.getAttribute('data-n'),w);}\n"
	"function zoom(svg,g){var x0=num(g,'data-x'),w0=num(g,'data-w'),d0=num(g,'data-d'),eps=1e-9;"
	"frames(svg).forEach(function(e){var x=num(e,'data-x'),w=num(e,'data-w'),d=num(e,'data-d'),show,nx,nw;"
	"if(d<d0){show=x<=x0+eps&&x+w>=x0+w0-eps;nx=0;nw=1;}else{show=x>=x0-eps&&x+w<=x0+w0+eps;nx=(x-x0)/w0;nw=w/w0;}"
	"e.style.display=show?'':'none'; if(show) place(e,nx,nw);});"
	"svg.querySelector('.fg-unzoom').style.opacity=d0>0?1:0;}\n"
	"function unzoom(svg){frames(svg).forEach(function(e){e.style.display='';place(e,num(e,'data-x'),num(e,'data-w'));});"
	"svg.querySelector('.fg-unzoom').style.opacity=0;}\n"
	"function search(svg,term){var re=null,spans=[],total=0;"
	"if(term){try{re=new RegExp(term);}catch(x){re=new RegExp(term.replace(/[.*+?^${}()|[\\]\\\\]/g,'\\\\$&'));}}"
	"frames(svg).forEach(function(e){var r=e.querySelector('rect');"
	"if(!r.hasAttribute('data-fill')) r.setAttribute('data-fill',r.getAttribute('fill'));"
	"var hit=re&&num(e,'data-d')>0&&re.test(e.getAttribute('data-n'));"
	"r.setAttribute('fill',hit?'rgb(230,0,230)':r.getAttribute('data-fill'));"
	"if(hit) spans.push([num(e,'data-x'),num(e,'data-x')+num(e,'data-w')]);});"
	"spans.sort(function(a,b){return a[0]-b[0];}); var end=-1;"
	"spans.forEach(function(s){if(s[0]>=end){total+=s[1]-s[0];end=s[1];}else if(s[1]>end){total+=s[1]-end;end=s[1];}});"
	"var m=svg.querySelector('.fg-matched'); m.textContent=re?'matched: '+(100*total).toFixed(2)+'% of the samples':'';"
	"return total;}\n"
	"function init(svg){if(svg.getAttribute('data-init')) return; svg.setAttribute('data-init','1');"
	"var info=svg.querySelector('.fg-details');"
	"svg.addEventListener('click',function(ev){var t=ev.target;"
	"if(t.closest('.fg-unzoom')){unzoom(svg);return;}"
	"if(t.closest('.fg-search')){var s=window.prompt('Search frames (a regular expression):','');if(s!==null)search(svg,s);return;}"
	"if(t.closest('.fg-clear')){search(svg,'');return;}"
	"var g=t.closest('g.f'); if(g) zoom(svg,g);});\n"
	"svg.addEventListener('mouseover',function(ev){var g=ev.target.closest('g.f'); if(g) info.textContent=g.querySelector('title').textContent;});\n"
	"svg.addEventListener('mouseout',function(){info.textContent=' ';});}\n"
	"window.sbFlame={init:init,search:search,zoom:zoom,unzoom:unzoom};\n"
	"})();\n";

const char *out_flame_script(void)
{
	return flame_js;
}

int out_flamegraph(const cJSON *profile, const char *title, const char *id, bool standalone,
		   FILE *f)
{
	const cJSON *stacks = cJSON_GetObjectItemCaseSensitive(profile, "stacks");
	const cJSON *e;
	struct ftree t = {.root = {.name = "all"}, .depth = 1};
	double left = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(profile, "stacks_left_out"));

	if (!cJSON_IsArray(stacks))
		return -ENOENT;
	cJSON_ArrayForEach(e, stacks) {
		const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "stack"));
		double n = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(e, "samples"));

		if (s && n > 0 && isfinite(n))
			ftree_add(&t, s, n);
	}
	if (!(t.root.v > 0) || !isfinite(t.root.v)) {
		ftree_free(&t);
		return -ENODATA;
	}
	ftree_sort(&t);
	struct fg g = {.f = f, .total = t.root.v, .depth = t.depth};

	g.height = FG_TOP + g.depth * FG_ROW + FG_BOTTOM;
	if (standalone)
		html_printf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n");
	html_printf(
	    f,
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flame\" id=\"%s\" width=\"%.0f\" "
	    "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"Verdana, sans-serif\" "
	    "font-size=\"11\">\n",
	    id, FG_WIDTH + 2 * FG_PAD, g.height, FG_WIDTH + 2 * FG_PAD, g.height);
	html_printf(f, "<style>.f text{pointer-events:none;fill:#000}.f:hover "
		       "rect{stroke:#000;stroke-width:0.7}"
		       ".fg-ctl{cursor:pointer;fill:#335}.fg-unzoom{opacity:0}</style>\n");
	html_printf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fbfbf6\"/>\n");
	html_printf(f, "<text x=\"%.0f\" y=\"20\" font-size=\"15\" text-anchor=\"middle\">",
		(FG_WIDTH + 2 * FG_PAD) / 2);
	html_text(f, title);
	html_printf(
	    f,
	    "</text>\n<text x=\"%.0f\" y=\"38\" text-anchor=\"middle\" fill=\"#555\">%.0f samples"
	    " drawn; client: red to orange, server: blue, softirq and other: green, idle: grey"
	    "%s%s</text>\n",
	    (FG_WIDTH + 2 * FG_PAD) / 2, t.root.v, left > 0 ? "; some rare stacks left out" : "",
	    t.cut ? "; stacks deeper than " FG_MAX_DEPTH_TEXT " frames cut" : "");
	html_printf(f, "<text class=\"fg-ctl fg-unzoom\" x=\"%.0f\" y=\"20\">Reset zoom</text>\n", FG_PAD);
	html_printf(f,
		    "<text class=\"fg-ctl fg-search\" x=\"%.0f\" y=\"20\" "
		    "text-anchor=\"end\">Search</text>\n",
		    FG_WIDTH + FG_PAD - 50);
	html_printf(f,
		    "<text class=\"fg-ctl fg-clear\" x=\"%.0f\" y=\"20\" "
		    "text-anchor=\"end\">Clear</text>\n",
		    FG_WIDTH + FG_PAD);
	html_printf(f, "<text class=\"fg-matched\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\"> </text>\n",
		FG_WIDTH + FG_PAD, g.height - 10);
	html_printf(f, "<text class=\"fg-details\" x=\"%.0f\" y=\"%.0f\"> </text>\n", FG_PAD,
		    g.height - 10);
	draw(&g, &t.root);
	if (standalone) {
		html_printf(f, "<script type=\"text/ecmascript\"><![CDATA[\n");
		html_raw(f, flame_js); /* its own script */
		html_printf(f, "window.sbFlame.init(document.getElementById('%s'));\n]]></script>\n",
			    id);
	}
	html_printf(f, "</svg>\n");
	ftree_free(&t);
	return ferror(f) ? -EIO : 0;
}
