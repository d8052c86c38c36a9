/* km_profile_svg: the profile as one self-contained interactive flame
 * graph (km_profile.h): an SVG whose script builds the boxes from the
 * call tree it carries — each box a frame ("function (file:line)"), as
 * wide as its cycles, its callers below it; hover for the counts, click to
 * zoom, "Search" to mark the frames a pattern matches.  No external
 * resource: a browser opens the file as it is.  When the boxes are built
 * the root element says so (data-ready="1", data-boxes="N"), which the
 * tests read from a headless browser's DOM. */
#include "km_profile.h"
#include "ks_grow.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct tnode {
    char *name;
    uint64_t value;
    struct tnode **kids;
    size_t nkids, cap;
} tnode;

static void tnode_free(tnode *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->nkids; i++)
        tnode_free(n->kids[i]);
    free(n->kids);
    free(n->name);
    free(n);
}

static tnode *tnode_new(const char *name, size_t len)
{
    tnode *n = calloc(1, sizeof *n);
    if (n && !(n->name = strndup(name, len))) {
        free(n);
        n = NULL;
    }
    return n;
}

/* n's child named [name, name + len), made if need be; NULL: no memory. */
static tnode *child(tnode *n, const char *name, size_t len)
{
    for (size_t i = 0; i < n->nkids; i++)
        if (strlen(n->kids[i]->name) == len && memcmp(n->kids[i]->name, name, len) == 0)
            return n->kids[i];
    if (!KS_GROW(n->kids, n->cap, n->nkids + 1))
        return NULL;
    tnode *c = tnode_new(name, len);
    if (c)
        n->kids[n->nkids++] = c;
    return c;
}

static cJSON *to_json(const tnode *n)
{
    cJSON *a = cJSON_CreateArray();
    cJSON *kids = cJSON_CreateArray();
    bool ok = a && kids && cJSON_AddItemToArray(a, cJSON_CreateString(n->name)) &&
              cJSON_AddItemToArray(a, cJSON_CreateNumber((double)n->value));
    for (size_t i = 0; ok && i < n->nkids; i++) {
        cJSON *k = to_json(n->kids[i]);
        ok = k && cJSON_AddItemToArray(kids, k);
    }
    if (ok && cJSON_AddItemToArray(a, kids))
        return a;
    cJSON_Delete(kids);
    cJSON_Delete(a);
    return NULL;
}

static unsigned depth_of(const tnode *n)
{
    unsigned d = 0;
    for (size_t i = 0; i < n->nkids; i++) {
        unsigned k = depth_of(n->kids[i]);
        if (k > d)
            d = k;
    }
    return d + 1;
}

/* The script: builds the boxes from DATA on load, zooms, searches. */
static const char SCRIPT[] =
    "var NS='http://www.w3.org/2000/svg',W=1200,ROW=17,TOP=40,root,svg,frames,details;\n"
    "function build(d,p,depth){var n={name:d[0],v:d[1],kids:[],parent:p,depth:depth};\n"
    "  for(var i=0;i<d[2].length;i++)n.kids.push(build(d[2][i],n,depth+1));return n;}\n"
    "function fmt(v){return String(v).replace(/\\B(?=(\\d{3})+(?!\\d))/g,',');}\n"
    "function color(s){var h=0;for(var i=0;i<s.length;i++)h=(h*31+s.charCodeAt(i))>>>0;\n"
    "  return 'rgb('+(205+h%50)+','+(90+(h>>>8)%130)+','+(40+(h>>>16)%55)+')';}\n"
    "function info(n){return n.name+' \\u2014 '+fmt(n.v)+' cycles, '+"
    "(100*n.v/root.v).toFixed(2)+'%';}\n"
    "var count=0;\n"
    "function box(n,x,w,dim){var y=TOP+(DEPTH-1-n.depth)*ROW;\n"
    "  var g=document.createElementNS(NS,'g');g.setAttribute('class','box');\n"
    "  var t=document.createElementNS(NS,'title');t.textContent=info(n);g.appendChild(t);\n"
    "  var r=document.createElementNS(NS,'rect');r.setAttribute('x',x);r.setAttribute('y',y);\n"
    "  r.setAttribute('width',Math.max(w,0.5));r.setAttribute('height',ROW-1);\n"
    "  r.setAttribute('fill',dim?'#ddd':color(n.name));r.setAttribute('rx',2);\n"
    "  r.setAttribute('data-name',n.name);g.appendChild(r);\n"
    "  if(w>35){var l=document.createElementNS(NS,'text');l.setAttribute('x',x+3);\n"
    "    l.setAttribute('y',y+12);var c=Math.floor((w-6)/7);\n"
    "    l.textContent=n.name.length>c?n.name.slice(0,c-2)+'..':n.name;g.appendChild(l);}\n"
    "  g.addEventListener('click',function(){zoom(n);});\n"
    "  g.addEventListener('mouseover',function(){details.textContent=info(n);});\n"
    "  frames.appendChild(g);count++;}\n"
    "function place(n,x,scale){var w=n.v*scale;if(w<0.3)return;box(n,x,w,false);\n"
    "  for(var i=0;i<n.kids.length;i++){place(n.kids[i],x,scale);x+=n.kids[i].v*scale;}}\n"
    "function zoom(f){while(frames.firstChild)frames.removeChild(frames.firstChild);count=0;\n"
    "  for(var a=f.parent;a;a=a.parent)box(a,10,W-20,true);\n"
    "  place(f,10,f.v?(W-20)/f.v:0);svg.setAttribute('data-boxes',count);}\n"
    "function search(){var re=prompt('Frames matching (a regular expression):','');\n"
    "  if(re===null)return;var rx;try{rx=new RegExp(re);}catch(e){return;}\n"
    "  var m=0,rs=frames.getElementsByTagName('rect');\n"
    "  for(var i=0;i<rs.length;i++){var hit=re!==''&&rx.test(rs[i].getAttribute('data-name'));\n"
    "    rs[i].setAttribute('stroke',hit?'#d0f':'none');rs[i].setAttribute('stroke-width',hit?2:0);}\n"
    "  var sum=0;(function walk(n,under){var hit=!under&&re!==''&&rx.test(n.name);\n"
    "    if(hit)sum+=n.v;for(var i=0;i<n.kids.length;i++)walk(n.kids[i],under||hit);})(root,false);\n"
    "  details.textContent=re===''?'':'matched '+fmt(sum)+' cycles, '+"
    "(100*sum/root.v).toFixed(2)+'%';}\n"
    "function init(){svg=document.documentElement;frames=document.getElementById('frames');\n"
    "  details=document.getElementById('details');root=build(DATA,null,0);\n"
    "  document.getElementById('reset').addEventListener('click',function(){zoom(root);});\n"
    "  document.getElementById('search').addEventListener('click',search);\n"
    "  zoom(root);svg.setAttribute('data-ready','1');}\n"
    "init();\n";

/* s with XML's five characters escaped, into f. */
static void put_xml(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: putc(*s, f);
        }
    }
}

char *km_profile_svg(const km_profile *p, const char *core, const char *title)
{
    tnode *root = tnode_new("all", 3);
    bool ok = root != NULL;
    for (size_t i = 0; ok && i < p->n; i++) {
        const km_profile_row *r = &p->rows[i];
        if (!km_profile_on_core(r, core) || !r->cycles)
            continue;
        root->value += r->cycles;
        tnode *n = root;
        for (const char *f = r->stack; ok && f;) {
            const char *semi = strchr(f, ';');
            size_t len = semi ? (size_t)(semi - f) : strlen(f);
            n = child(n, f, len);
            ok = n != NULL;
            if (ok)
                n->value += r->cycles;
            f = semi ? semi + 1 : NULL;
        }
    }
    cJSON *tree = ok ? to_json(root) : NULL;
    char *json = tree ? cJSON_PrintUnformatted(tree) : NULL;
    cJSON_Delete(tree);
    char *out = NULL;
    size_t n = 0;
    FILE *f = json ? open_memstream(&out, &n) : NULL;
    if (f) {
        unsigned depth = depth_of(root);
        unsigned height = 40 + depth * 17 + 30;
        fprintf(f,
                "<?xml version=\"1.0\" standalone=\"no\"?>\n"
                "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"1200\" "
                "height=\"%u\" viewBox=\"0 0 1200 %u\" data-ready=\"0\">\n"
                "<style>text{font:12px monospace;fill:#000}g.box{cursor:pointer}"
                "g.box:hover rect{stroke:#000;stroke-width:1}"
                "#reset,#search{fill:#06c;cursor:pointer}</style>\n"
                "<rect x=\"0\" y=\"0\" width=\"1200\" height=\"%u\" fill=\"#fafaf5\"/>\n"
                "<text x=\"600\" y=\"20\" text-anchor=\"middle\" style=\"font-size:15px\">",
                height, height, height);
        put_xml(f, title ? title : "kmrun profile");
        fprintf(f,
                "</text>\n"
                "<text id=\"reset\" x=\"10\" y=\"20\">Reset zoom</text>\n"
                "<text id=\"search\" x=\"1190\" y=\"20\" text-anchor=\"end\">Search</text>\n"
                "<text id=\"details\" x=\"10\" y=\"%u\"> </text>\n"
                "<g id=\"frames\"></g>\n"
                "<script type=\"text/ecmascript\"><![CDATA[\nvar DEPTH=%u;\nvar DATA=",
                height - 10, depth);
        /* '<' and '>' only ever stand in its strings: escaped, no "]]>" */
        for (const char *c = json; *c; c++) {
            if (*c == '<')
                fputs("\\u003c", f);
            else if (*c == '>')
                fputs("\\u003e", f);
            else
                putc(*c, f);
        }
        fputs(";\n", f);
        fputs(SCRIPT, f);
        fputs("]]></script>\n</svg>\n", f);
        if (fclose(f) != 0) {
            free(out);
            out = NULL;
        }
    }
    free(json);
    tnode_free(root);
    return out;
}
