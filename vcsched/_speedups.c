/* Compiled loops of the batch simulators' path from an SWF file to jobs.csv, without numba's start-up.
 *
 * Built by setuptools as the optional extension vcsched._speedups (setup.py); vcsched/native.py loads
 * it and every caller falls back to the numba or pure-Python version of the same rule when it is
 * absent (no compiler at install time) or stale (VERSION differs). Each function is the same rule as
 * its fallback, tested equal in tests/sim/test_sim_whole_run.py and tests/sim/test_sim_plain_batch.py:
 *
 *   parse_swf       vcsched/problems/swf_compiled.py (_parse, _number)
 *   simulate_one    vcsched/sim/whole_run.py (simulate_one, _backfill, _shadow)
 *   allocate        vcsched/sim/output.py (_sweep: lowest free numbers, ends before starts)
 *   csv_rows        vcsched/sim/output.py (_csv_field: the bytes of pandas' to_csv)
 *
 * Arrays are passed through the buffer protocol (numpy arrays, C-contiguous), so the build needs no
 * numpy headers.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define SPEEDUPS_VERSION 1

/* ---------------------------------------------------------------- buffers */

typedef struct {
    Py_buffer view;
    int held;
} Buf;

/* Get a C-contiguous buffer of items of 8 bytes: 'd' (float64) when want_float, else a signed 64-bit
 * integer format. Sets an exception and returns -1 otherwise. */
static int get_buf(PyObject *obj, Buf *b, int want_float, int writable, const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    b->held = 0;
    if (PyObject_GetBuffer(obj, &b->view, flags) < 0) return -1;
    b->held = 1;
    const char *f = b->view.format ? b->view.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    int ok = b->view.itemsize == 8 && (want_float ? f[0] == 'd' : (f[0] == 'l' || f[0] == 'q')) && f[1] == 0;
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "%s: expected a contiguous %s array", name, want_float ? "float64" : "int64");
        return -1;
    }
    return 0;
}

static void release(Buf *bufs, int n) {
    for (int i = 0; i < n; i++)
        if (bufs[i].held) PyBuffer_Release(&bufs[i].view);
}

static Py_ssize_t buf_len(Buf *b) { return b->view.len / 8; }

/* ---------------------------------------------------------------- SWF data lines */

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
#define MANTISSA_LIMIT (((int64_t)1) << 53)

/* The number starting at u[*pos] (swf_compiled._number): optional '-', digits with at most one '.',
 * at least one digit, mantissa below 2**53, at most 22 decimals; value mantissa / 10**decimals. */
static int swf_number(const unsigned char *u, Py_ssize_t *pos, Py_ssize_t n, double *value) {
    Py_ssize_t p = *pos;
    int neg = u[p] == '-';
    if (neg) p++;
    int64_t mant = 0;
    int frac = 0, dot = 0, digits = 0;
    while (p < n) {
        unsigned char c = u[p];
        if (c >= '0' && c <= '9') {
            if (mant >= MANTISSA_LIMIT) return 0;
            mant = mant * 10 + (c - '0');
            digits = 1;
            if (dot) frac++;
        } else if (c == '.' && !dot) {
            dot = 1;
        } else if (c == ' ' || c == '\t' || c == '\n') {
            break;
        } else {
            return 0;
        }
        p++;
    }
    if (!digits || mant >= MANTISSA_LIMIT || frac > 22) return 0;
    double v = (double)mant;
    if (frac) v = v / POW10[frac];
    *value = neg ? -v : v;
    *pos = p;
    return 1;
}

static PyObject *parse_swf(PyObject *self, PyObject *args) {
    PyObject *data_o, *out_o, *lines_o;
    Py_ssize_t start, width;
    if (!PyArg_ParseTuple(args, "OnnOO", &data_o, &start, &width, &out_o, &lines_o)) return NULL;
    Buf b[3];
    memset(b, 0, sizeof b);
    if (PyObject_GetBuffer(data_o, &b[0].view, PyBUF_SIMPLE) < 0) return NULL;
    b[0].held = 1;
    if (get_buf(out_o, &b[1], 1, 1, "out") < 0 || get_buf(lines_o, &b[2], 0, 1, "lines") < 0) {
        release(b, 3);
        return NULL;
    }
    const unsigned char *u = (const unsigned char *)b[0].view.buf;
    Py_ssize_t n = b[0].view.len, cap_out = buf_len(&b[1]), cap_lines = buf_len(&b[2]);
    double *out = (double *)b[1].view.buf;
    int64_t *lines = (int64_t *)b[2].view.buf;
    Py_ssize_t pos = start, row = 0, line = 0;
    int ok = 1;
    Py_BEGIN_ALLOW_THREADS
    while (pos < n) {
        Py_ssize_t count = 0;
        for (;;) {
            while (pos < n && (u[pos] == ' ' || u[pos] == '\t')) pos++;
            if (pos >= n || u[pos] == '\n') break;
            double v;
            if (count == width || (row + 1) * width > cap_out || !swf_number(u, &pos, n, &v)) {
                ok = 0;
                goto done;
            }
            out[row * width + count] = v;
            count++;
        }
        if (count == width) {
            if (row >= cap_lines) {
                ok = 0;
                goto done;
            }
            lines[row] = line;
            row++;
        } else if (count != 0) {
            ok = 0;
            goto done;
        }
        line++;
        pos++;
    }
done:
    Py_END_ALLOW_THREADS
    release(b, 3);
    return Py_BuildValue("On", ok ? Py_True : Py_False, row);
}

/* ---------------------------------------------------------------- one FCFS/EASY cluster */

typedef struct {
    double *t;
    int64_t *s, *j;
    Py_ssize_t size;
} Heap;

/* Entry `from` of the heap's three arrays copied to slot `to`. */
static inline void heap_move(Heap *h, Py_ssize_t to, Py_ssize_t from) {
    h->t[to] = h->t[from];
    h->s[to] = h->s[from];
    h->j[to] = h->j[from];
}

/* Entry (t, s, j) stored at slot `i`. */
static inline void heap_put(Heap *h, Py_ssize_t i, double t, int64_t s, int64_t j) {
    h->t[i] = t;
    h->s[i] = s;
    h->j[i] = j;
}

static void heap_push(Heap *h, double t, int64_t s, int64_t j) {
    Py_ssize_t i = h->size++;
    while (i > 0) {
        Py_ssize_t parent = (i - 1) / 2;
        if (h->t[parent] < t || (h->t[parent] == t && h->s[parent] < s)) break;
        heap_move(h, i, parent);
        i = parent;
    }
    heap_put(h, i, t, s, j);
}

static int64_t heap_pop(Heap *h) {
    int64_t top = h->j[0];
    Py_ssize_t size = --h->size;
    double t = h->t[size];
    int64_t s = h->s[size], j = h->j[size];
    Py_ssize_t i = 0;
    for (;;) {
        Py_ssize_t c = 2 * i + 1;
        if (c >= size) break;
        if (c + 1 < size && (h->t[c + 1] < h->t[c] || (h->t[c + 1] == h->t[c] && h->s[c + 1] < h->s[c]))) c++;
        if (t < h->t[c] || (t == h->t[c] && s < h->s[c])) break;
        heap_move(h, i, c);
        i = c;
    }
    heap_put(h, i, t, s, j);
    return top;
}

/* Running jobs sorted by (requested end, job): EASY's shadow time reads them in this order. */
typedef struct {
    double *t;
    int64_t *j;
    Py_ssize_t m;
} Running;

static Py_ssize_t running_pos(const Running *r, double t, int64_t j) {
    Py_ssize_t lo = 0, hi = r->m;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (r->t[mid] < t || (r->t[mid] == t && r->j[mid] < j)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static void running_add(Running *r, double t, int64_t j) {
    Py_ssize_t k = running_pos(r, t, j);
    memmove(r->t + k + 1, r->t + k, (r->m - k) * sizeof(double));
    memmove(r->j + k + 1, r->j + k, (r->m - k) * sizeof(int64_t));
    r->t[k] = t;
    r->j[k] = j;
    r->m++;
}

static void running_remove(Running *r, double t, int64_t j) {
    Py_ssize_t k = running_pos(r, t, j);
    memmove(r->t + k, r->t + k + 1, (r->m - k - 1) * sizeof(double));
    memmove(r->j + k, r->j + k + 1, (r->m - k - 1) * sizeof(int64_t));
    r->m--;
}

typedef struct {
    const double *submit, *run, *req;
    const int64_t *procs;
    double *start, *finish, *head_res;
    int64_t *nxt, *prv, sent, seq, free;
    Heap heap;
    Running running;
    int easy;
} Sim;

static void sim_start(Sim *S, int64_t j, double t) {
    S->start[j] = t;
    S->free -= S->procs[j];
    S->seq++;
    heap_push(&S->heap, t + S->run[j], S->seq, j);
    if (S->easy) running_add(&S->running, t + S->req[j], j);
}

/* EASY's shadow time and extra processors for the blocked head (whole_run._shadow). */
static double shadow_of(Sim *S, int64_t head, int64_t *extra) {
    const Running *r = &S->running;
    int64_t need = S->procs[head] - S->free, acc = 0;
    Py_ssize_t k = 0;
    while (k < r->m) {
        double rend = r->t[k];
        acc += S->procs[r->j[k]];
        k++;
        if (acc >= need) {
            while (k < r->m && r->t[k] == rend) acc += S->procs[r->j[k++]];
            *extra = S->free + acc - S->procs[head];
            return rend;
        }
    }
    *extra = 0;
    return INFINITY;
}

/* EASY's pass after the head h is blocked (whole_run._backfill). */
static void backfill(Sim *S, double t, int64_t h) {
    int64_t extra;
    double shadow = shadow_of(S, h, &extra);
    if (isnan(S->head_res[h])) S->head_res[h] = shadow;
    double limit = shadow - t;
    int64_t j = S->nxt[h];
    while (j != S->sent && S->free > 0) {
        int64_t after = S->nxt[j], p = S->procs[j];
        if (p <= S->free) {
            int late = S->req[j] > limit;
            if (!late || p <= extra) {
                S->nxt[S->prv[j]] = after;
                S->prv[after] = S->prv[j];
                if (late) extra -= p;
                sim_start(S, j, t);
            }
        }
        j = after;
    }
}

static int64_t simulate(Sim *S, Py_ssize_t n) {
    int64_t sent = S->sent, passes = 0;
    Py_ssize_t a = 0;
    Heap *H = &S->heap;
    while (a < n || H->size > 0) {
        double t = a < n ? S->submit[a] : INFINITY;
        if (H->size > 0 && H->t[0] < t) t = H->t[0];
        int first = 1;
        for (;;) {
            while (H->size > 0 && H->t[0] == t) {
                int64_t j = heap_pop(H);
                S->finish[j] = t;
                S->free += S->procs[j];
                if (S->easy) running_remove(&S->running, S->start[j] + S->req[j], j);
            }
            while (first && a < n && S->submit[a] == t) {
                int64_t last = S->prv[sent];
                S->nxt[last] = a;
                S->prv[a] = last;
                S->nxt[a] = sent;
                S->prv[sent] = a;
                a++;
            }
            first = 0;
            passes++;
            int64_t h = S->nxt[sent];
            while (h != sent && S->procs[h] <= S->free) { /* from the head while the jobs fit */
                S->nxt[sent] = S->nxt[h];
                S->prv[S->nxt[h]] = sent;
                sim_start(S, h, t);
                h = S->nxt[sent];
            }
            if (S->easy && h != sent) backfill(S, t, h);
            if (!(H->size > 0 && H->t[0] == t)) break;
        }
    }
    return passes;
}

static PyObject *simulate_one(PyObject *self, PyObject *args) {
    PyObject *o[9];
    long long total;
    int easy;
    if (!PyArg_ParseTuple(args, "OOOOLpOOO", &o[0], &o[1], &o[2], &o[3], &total, &easy, &o[4], &o[5], &o[6]))
        return NULL;
    Buf b[7];
    memset(b, 0, sizeof b);
    static const char *names[7] = {"submit", "run", "req", "procs", "start", "finish", "head_res"};
    for (int i = 0; i < 7; i++) {
        if (get_buf(o[i], &b[i], i != 3, i >= 4, names[i]) < 0) {
            release(b, 7);
            return NULL;
        }
    }
    Py_ssize_t n = buf_len(&b[0]);
    for (int i = 1; i < 7; i++) {
        if (buf_len(&b[i]) != n) {
            release(b, 7);
            return PyErr_Format(PyExc_ValueError, "%s: length differs from submit's", names[i]);
        }
    }
    const int64_t *procs = (const int64_t *)b[3].view.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (procs[i] < 1 || procs[i] > total) {
            release(b, 7);
            return PyErr_Format(PyExc_ValueError, "procs[%zd] = %lld is not in 1..%lld", i, (long long)procs[i],
                                total);
        }
    }
    Sim S;
    memset(&S, 0, sizeof S);
    S.submit = b[0].view.buf;
    S.run = b[1].view.buf;
    S.req = b[2].view.buf;
    S.procs = procs;
    S.start = b[4].view.buf;
    S.finish = b[5].view.buf;
    S.head_res = b[6].view.buf;
    S.sent = n;
    S.free = total;
    S.easy = easy;
    S.nxt = PyMem_Malloc((n + 1) * sizeof(int64_t));
    S.prv = PyMem_Malloc((n + 1) * sizeof(int64_t));
    S.heap.t = PyMem_Malloc((n + 1) * sizeof(double));
    S.heap.s = PyMem_Malloc((n + 1) * sizeof(int64_t));
    S.heap.j = PyMem_Malloc((n + 1) * sizeof(int64_t));
    S.running.t = PyMem_Malloc((n + 1) * sizeof(double));
    S.running.j = PyMem_Malloc((n + 1) * sizeof(int64_t));
    int64_t passes = -1;
    if (S.nxt && S.prv && S.heap.t && S.heap.s && S.heap.j && S.running.t && S.running.j) {
        S.nxt[n] = S.prv[n] = n;
        Py_BEGIN_ALLOW_THREADS
        passes = simulate(&S, n);
        Py_END_ALLOW_THREADS
    }
    PyMem_Free(S.nxt);
    PyMem_Free(S.prv);
    PyMem_Free(S.heap.t);
    PyMem_Free(S.heap.s);
    PyMem_Free(S.heap.j);
    PyMem_Free(S.running.t);
    PyMem_Free(S.running.j);
    release(b, 7);
    if (passes < 0) return PyErr_NoMemory();
    return PyLong_FromLongLong(passes);
}

/* ---------------------------------------------------------------- processor numbers */

/* Growable text of the interval sets: job j's text is text[off[j] .. off[j] + len[j]). */
typedef struct {
    char *p;
    size_t len, cap;
} Text;

static int text_reserve(Text *s, size_t more) {
    if (s->len + more <= s->cap) return 0;
    size_t cap = s->cap ? s->cap : 1 << 16;
    while (cap < s->len + more) cap *= 2;
    char *p = PyMem_Realloc(s->p, cap);
    if (!p) return -1;
    s->p = p;
    s->cap = cap;
    return 0;
}

static size_t put_int(char *p, int64_t v);

static int text_interval(Text *s, int64_t a, int64_t b, int sep) {
    if (text_reserve(s, 48) < 0) return -1;
    if (sep) s->p[s->len++] = ' ';
    s->len += put_int(s->p + s->len, a);
    if (a != b) {
        s->p[s->len++] = '-';
        s->len += put_int(s->p + s->len, b);
    }
    return 0;
}

static void bits_set(uint64_t *w, int64_t a, int64_t b, int on) { /* numbers a..b free (on) or taken */
    for (int64_t x = a; x <= b;) {
        int64_t i = x >> 6, lo = x & 63, hi = (b >> 6) == i ? (b & 63) : 63;
        uint64_t mask = (hi == 63 ? ~(uint64_t)0 : (((uint64_t)1 << (hi + 1)) - 1)) & ~(((uint64_t)1 << lo) - 1);
        if (on) w[i] |= mask;
        else w[i] &= ~mask;
        x = (i + 1) << 6;
    }
}

/* The sweep of output._sweep: events (who, kind) in order, kind 0 an end, 1 a start; a start takes the
 * procs[j] lowest free numbers (whole runs of free numbers at a time), an end frees them; a zero-length
 * job whose end came first gets numbers without holding them. Interval lo..hi pairs per job in ivl. */
static PyObject *allocate(PyObject *self, PyObject *args) {
    PyObject *who_o, *kind_o, *procs_o;
    long long total;
    if (!PyArg_ParseTuple(args, "OOOL", &who_o, &kind_o, &procs_o, &total)) return NULL;
    Buf b[3];
    memset(b, 0, sizeof b);
    if (get_buf(who_o, &b[0], 0, 0, "who") < 0 || get_buf(kind_o, &b[1], 0, 0, "kind") < 0 ||
        get_buf(procs_o, &b[2], 0, 0, "procs") < 0) {
        release(b, 3);
        return NULL;
    }
    const int64_t *who = b[0].view.buf, *kind = b[1].view.buf, *procs = b[2].view.buf;
    Py_ssize_t events = buf_len(&b[0]), n = buf_len(&b[2]);
    if (buf_len(&b[1]) != events || total < 0) {
        release(b, 3);
        return PyErr_Format(PyExc_ValueError, "who and kind differ in length, or total < 0");
    }
    for (Py_ssize_t e = 0; e < events; e++) {
        if (who[e] < 0 || who[e] >= n) {
            release(b, 3);
            return PyErr_Format(PyExc_ValueError, "who[%zd] is not a job row", e);
        }
    }
    Py_ssize_t words = (Py_ssize_t)((total + 63) / 64) + 1;
    uint64_t *freew = PyMem_Calloc(words, sizeof(uint64_t));
    int64_t *off = PyMem_Calloc(n + 1, sizeof(int64_t)), *len = PyMem_Calloc(n + 1, sizeof(int64_t));
    int64_t *ivl = NULL; /* (a, b) pairs of the held numbers of each job, in a growable array */
    int64_t *ivl_at = PyMem_Calloc(n + 1, sizeof(int64_t)), *ivl_n = PyMem_Calloc(n + 1, sizeof(int64_t));
    char *state = PyMem_Calloc(n + 1, 1); /* 1 holds its numbers, 2 ended before its start */
    Text s = {NULL, 0, 0};
    size_t ivl_len = 0, ivl_cap = 0;
    PyObject *result = NULL;
    long long status = 0, at = 0;
    if (!freew || !off || !len || !ivl_at || !ivl_n || !state) goto nomem;
    if (total > 0) bits_set(freew, 0, total - 1, 1);
    for (Py_ssize_t e = 0; e < events; e++) {
        int64_t j = who[e];
        if (kind[e] == 0) {
            if (state[j] == 1) {
                for (int64_t r = ivl_at[j]; r < ivl_at[j] + ivl_n[j]; r++) bits_set(freew, ivl[2 * r], ivl[2 * r + 1], 1);
                state[j] = 0;
            } else {
                state[j] = 2;
            }
            continue;
        }
        int64_t need = procs[j];
        ivl_at[j] = (int64_t)(ivl_len / 2);
        ivl_n[j] = 0;
        off[j] = (int64_t)s.len;
        for (Py_ssize_t i = 0; need > 0 && i < words; i++) {
            uint64_t w = freew[i];
            while (need > 0 && w) {
                int lo = __builtin_ctzll(w);
                uint64_t rest = ~(w >> lo);
                int run = rest ? __builtin_ctzll(rest) : 64 - lo;
                if (run > need) run = (int)need;
                int64_t a = ((int64_t)i << 6) + lo, z = a + run - 1;
                w &= ~((run == 64 ? ~(uint64_t)0 : (((uint64_t)1 << run) - 1)) << lo);
                need -= run;
                if (ivl_n[j] > 0 && ivl[ivl_len - 1] == a - 1) {
                    ivl[ivl_len - 1] = z;
                } else {
                    if (ivl_len + 2 > ivl_cap) {
                        size_t cap = ivl_cap ? 2 * ivl_cap : 1 << 16;
                        int64_t *p = PyMem_Realloc(ivl, cap * sizeof(int64_t));
                        if (!p) goto nomem;
                        ivl = p;
                        ivl_cap = cap;
                    }
                    ivl[ivl_len++] = a;
                    ivl[ivl_len++] = z;
                    ivl_n[j]++;
                }
            }
        }
        for (int64_t r = ivl_at[j]; r < ivl_at[j] + ivl_n[j]; r++) {
            if (text_interval(&s, ivl[2 * r], ivl[2 * r + 1], r > ivl_at[j]) < 0) goto nomem;
        }
        len[j] = (int64_t)s.len - off[j];
        if (state[j] == 2) {
            state[j] = 0;
            continue;
        }
        if (need > 0) {
            status = -1;
            at = e;
            break;
        }
        for (int64_t r = ivl_at[j]; r < ivl_at[j] + ivl_n[j]; r++) bits_set(freew, ivl[2 * r], ivl[2 * r + 1], 0);
        state[j] = 1;
    }
    if (status == 0) {
        PyObject *cells = PyList_New(n), *empty = PyUnicode_FromStringAndSize("", 0);
        if (!cells || !empty) {
            Py_XDECREF(cells);
            Py_XDECREF(empty);
            goto done;
        }
        for (Py_ssize_t j = 0; j < n; j++) {
            PyObject *cell;
            if (len[j] == 0) {
                Py_INCREF(empty);
                cell = empty;
            } else {
                cell = PyUnicode_FromStringAndSize(s.p + off[j], len[j]);
                if (!cell) {
                    Py_DECREF(cells);
                    Py_DECREF(empty);
                    goto done;
                }
            }
            PyList_SET_ITEM(cells, j, cell);
        }
        Py_DECREF(empty);
        result = Py_BuildValue("LLN", status, at, cells);
    } else {
        result = Py_BuildValue("LLO", status, at, Py_None);
    }
    goto done;
nomem:
    PyErr_NoMemory();
done:
    PyMem_Free(freew);
    PyMem_Free(off);
    PyMem_Free(len);
    PyMem_Free(ivl);
    PyMem_Free(ivl_at);
    PyMem_Free(ivl_n);
    PyMem_Free(state);
    PyMem_Free(s.p);
    release(b, 3);
    return result;
}

/* ---------------------------------------------------------------- CSV rows */

/* Decimal digits of v at p (what "%lld" writes), two digits at a time; returns the number of bytes. */
static size_t put_int(char *p, int64_t v) {
    static const char PAIRS[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                   "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                   "8081828384858687888990919293949596979899";
    char tmp[24];
    size_t k = sizeof tmp, len = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    while (u >= 100) {
        const char *d = PAIRS + 2 * (u % 100);
        u /= 100;
        tmp[--k] = d[1];
        tmp[--k] = d[0];
    }
    if (u >= 10) {
        tmp[--k] = PAIRS[2 * u + 1];
        tmp[--k] = PAIRS[2 * u];
    } else {
        tmp[--k] = (char)('0' + u);
    }
    if (v < 0) p[len++] = '-';
    memcpy(p + len, tmp + k, sizeof tmp - k);
    return len + sizeof tmp - k;
}

#ifdef __SIZEOF_INT128__
static const uint64_t POW10_U[18] = {1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
                                     100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
                                     1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
                                     1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL};

/* The k-decimal candidate of a = m / 2**s: *c = the integer nearest to a * 10**k (exact, in 128-bit integers).
 * Returns 1 when *c / 10**k reads back as a (strictly inside a's rounding interval), 0 when it does not,
 * -1 when the case is not decided here (a tie in the rounding, or *c / 10**k on the interval's boundary). */
static int repr_candidate(uint64_t m, int s, int k, uint64_t *c) {
    typedef unsigned __int128 u128;
    u128 n = (u128)m * POW10_U[k], one = (u128)1 << s, rem = n & (one - 1), half = one >> 1, dist;
    *c = (uint64_t)(n >> s);
    if (rem > half) {
        *c += 1;
        dist = one - rem;
    } else if (rem < half) {
        dist = rem;
    } else {
        return -1;
    }
    /* |c / 10**k - a| = dist / (2**s 10**k) against half an ulp, 1 / 2**(s + 1) */
    if (2 * dist == (u128)POW10_U[k]) return -1;
    return 2 * dist < (u128)POW10_U[k];
}
#endif

/* float.__repr__ of a finite double 1 <= |v| < 2**53, written at p (at most 19 bytes); returns the length, or
 * 0 when this shortcut does not decide and the caller asks CPython (PyOS_double_to_string).
 *
 * repr is the shortest decimal that reads back as v, the nearest to v among the shortest. With
 * v = m / 2**s (m < 2**53, s >= 1) and d integer digits, the candidate with k decimals is the integer
 * nearest to v * 10**k, computed exactly; it reads back as v when it lies strictly within half an ulp of v
 * (the rounding interval is symmetric unless m = 2**52, which is left to CPython). If some k-decimal
 * number reads back, the nearest one does, and so does every candidate with more decimals: the
 * smallest such k (1 <= k <= 17 - d) is found by bisection, and its candidate is the repr's digits.
 * Ties and candidates on the interval's boundary are left to CPython. */
static size_t put_repr_fast(char *p, double v) {
#ifdef __SIZEOF_INT128__
    double a = fabs(v);
    if (!(a >= 1.0 && a < 9007199254740992.0)) return 0;
    int e;
    double f = frexp(a, &e); /* a = f 2**e, 0.5 <= f < 1 */
    uint64_t m = (uint64_t)ldexp(f, 53);
    int s = 53 - e;
    if (s < 1 || m == ((uint64_t)1 << 52)) return 0;
    uint64_t ip = (uint64_t)a;
    int d = 1;
    while (d < 17 && ip >= POW10_U[d]) d++;
    int lo = 1, hi = 17 - d;
    if (hi < 1) return 0;
    uint64_t c;
    if (repr_candidate(m, s, hi, &c) != 1) return 0;
    uint64_t best = c;
    while (lo < hi) {
        int mid = (lo + hi) / 2, r = repr_candidate(m, s, mid, &c);
        if (r < 0) return 0;
        if (r) {
            hi = mid;
            best = c;
        } else {
            lo = mid + 1;
        }
    }
    char digits[24];
    int len = (int)put_int(digits, (int64_t)best);
    if (len != d + hi) return 0;
    size_t out = 0;
    if (v < 0) p[out++] = '-';
    memcpy(p + out, digits, (size_t)d);
    out += (size_t)d;
    p[out++] = '.';
    memcpy(p + out, digits + d, (size_t)hi);
    return out + (size_t)hi;
#else
    (void)p;
    (void)v;
    return 0;
#endif
}

/* The rows of a table as CSV text: columns[k] is a float64 array ('f': repr, NaN empty, as pandas'
 * to_csv), an int64 array ('i': %d) or a list ('s': each cell a str written as it is). Rows end with
 * '\n'. Returns bytes (UTF-8), or None when a cell of an 's' column is not a str or needs quotes
 * (a comma, a double quote, a line break): the caller then writes the block itself. */
typedef struct {
    PyObject *cell; /* borrowed from the column's list, which the caller holds */
    const char *text;
    size_t len;
} Cell;

static PyObject *csv_rows(PyObject *self, PyObject *args) {
    PyObject *cols, *kinds_o;
    if (!PyArg_ParseTuple(args, "O!U", &PyList_Type, &cols, &kinds_o)) return NULL;
    Py_ssize_t ncol = PyList_GET_SIZE(cols);
    const char *kinds = PyUnicode_AsUTF8(kinds_o);
    if (!kinds) return NULL;
    if ((Py_ssize_t)strlen(kinds) != ncol) return PyErr_Format(PyExc_ValueError, "one kind per column");
    Buf *b = PyMem_Calloc(ncol + 1, sizeof(Buf));
    Cell *last = PyMem_Calloc(ncol + 1, sizeof(Cell)); /* each 's' column's last cell and its checked text */
    if (!b || !last) {
        PyMem_Free(b);
        PyMem_Free(last);
        return PyErr_NoMemory();
    }
    Py_ssize_t rows = -1;
    PyObject *result = NULL;
    Text s = {NULL, 0, 0};
    for (Py_ssize_t k = 0; k < ncol; k++) {
        PyObject *c = PyList_GET_ITEM(cols, k);
        Py_ssize_t len;
        if (kinds[k] == 's') {
            if (!PyList_Check(c)) {
                PyErr_Format(PyExc_TypeError, "column %zd: a list of str expected", k);
                goto done;
            }
            len = PyList_GET_SIZE(c);
        } else if (kinds[k] == 'f' || kinds[k] == 'i') {
            if (get_buf(c, &b[k], kinds[k] == 'f', 0, "column") < 0) goto done;
            len = buf_len(&b[k]);
        } else {
            PyErr_Format(PyExc_ValueError, "column kind %c is not f, i or s", kinds[k]);
            goto done;
        }
        if (rows >= 0 && len != rows) {
            PyErr_Format(PyExc_ValueError, "column %zd has %zd rows, not %zd", k, len, rows);
            goto done;
        }
        rows = len;
    }
    for (Py_ssize_t r = 0; r < rows; r++) {
        for (Py_ssize_t k = 0; k < ncol; k++) {
            if (text_reserve(&s, 40) < 0) goto nomem;
            if (k) s.p[s.len++] = ',';
            if (kinds[k] == 'i') {
                s.len += put_int(s.p + s.len, ((const int64_t *)b[k].view.buf)[r]);
            } else if (kinds[k] == 'f') {
                double v = ((const double *)b[k].view.buf)[r];
                if (isnan(v)) continue;
                if (fabs(v) < 1e16 && v == (double)(int64_t)v && !(v == 0 && signbit(v))) {
                    s.len += put_int(s.p + s.len, (int64_t)v); /* repr of an integral float: digits and ".0" */
                    s.p[s.len++] = '.';
                    s.p[s.len++] = '0';
                    continue;
                }
                size_t fast = put_repr_fast(s.p + s.len, v);
                if (fast) {
                    s.len += fast;
                    continue;
                }
                char *text = PyOS_double_to_string(v, 'r', 0, Py_DTSF_ADD_DOT_0, NULL); /* float.__repr__ */
                if (!text) goto done;
                size_t tl = strlen(text);
                if (text_reserve(&s, tl) < 0) {
                    PyMem_Free(text);
                    goto nomem;
                }
                memcpy(s.p + s.len, text, tl);
                s.len += tl;
                PyMem_Free(text);
            } else {
                PyObject *cell = PyList_GET_ITEM(PyList_GET_ITEM(cols, k), r);
                if (cell != last[k].cell) { /* a column of repeated names holds the same str object row after row */
                    Py_ssize_t tl;
                    const char *text = PyUnicode_Check(cell) ? PyUnicode_AsUTF8AndSize(cell, &tl) : NULL;
                    if (!text) {
                        if (PyErr_Occurred()) goto done;
                        result = Py_NewRef(Py_None); /* not a str: the caller writes this block */
                        goto done;
                    }
                    for (Py_ssize_t i = 0; i < tl; i++) {
                        char c = text[i];
                        if (c == ',' || c == '"' || c == '\n' || c == '\r') {
                            result = Py_NewRef(Py_None); /* a cell to quote: the caller writes this block */
                            goto done;
                        }
                    }
                    last[k].cell = cell;
                    last[k].text = text;
                    last[k].len = (size_t)tl;
                }
                if (text_reserve(&s, last[k].len) < 0) goto nomem;
                memcpy(s.p + s.len, last[k].text, last[k].len);
                s.len += last[k].len;
            }
        }
        if (text_reserve(&s, 1) < 0) goto nomem;
        s.p[s.len++] = '\n';
    }
    result = PyBytes_FromStringAndSize(s.p ? s.p : "", (Py_ssize_t)s.len);
    goto done;
nomem:
    PyErr_NoMemory();
done:
    release(b, (int)ncol);
    PyMem_Free(b);
    PyMem_Free(last);
    PyMem_Free(s.p);
    return result;
}

/* ---------------------------------------------------------------- module */

static PyMethodDef methods[] = {
    {"parse_swf", parse_swf, METH_VARARGS,
     "parse_swf(data, start, width, out, lines) -> (ok, rows): swf_compiled._parse compiled."},
    {"simulate_one", simulate_one, METH_VARARGS,
     "simulate_one(submit, run, req, procs, total, easy, start, finish, head_res) -> passes: "
     "whole_run.simulate_one compiled."},
    {"allocate", allocate, METH_VARARGS,
     "allocate(who, kind, procs, total) -> (status, at, cells): the processor sweep of output._sweep."},
    {"csv_rows", csv_rows, METH_VARARGS, "csv_rows(columns, kinds) -> bytes: rows of jobs.csv."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_speedups",
                                    "Compiled loops of vcsched's batch path (see vcsched/native.py).", -1, methods};

PyMODINIT_FUNC PyInit__speedups(void) {
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddIntConstant(m, "VERSION", SPEEDUPS_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
