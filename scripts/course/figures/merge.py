"""Summaries that merge (stages 16 and 17): online softmax's running (max, sum) pairs on the
butterfly, and Welford's (count, mean, M2) merged with Chan, Golub and LeVeque's formula. The
numbers in the drawings are computed here with the answers' formulas."""
import math

from .draw import BLUE, GREY, INK, ORANGE, VERMILLION, WHITE, Figure, fmt, swatch

# ---------------------------------------------------------------------------- stage 16


def merge_running(a, b):
    """answers/stage16_softmax/todo.cu, TODO 4 (merge): top = max_of(a.top, b.top);
    total = a.total * rescale(a.top, top) + b.total * rescale(b.top, top), where
    rescale(from, to) = exp(from - to) (0 for a pair that has seen nothing)."""
    top = max(a[0], b[0])
    rescale = lambda frm: 0.0 if frm == float("-inf") else math.exp(frm - top)
    return (top, a[1] * rescale(a[0]) + b[1] * rescale(b[0]))


def butterfly(values, merge):
    """warp_merge's loop on len(values) lanes: for offset = lanes/2 .. 1, lane i merges with
    lane i ^ offset (__shfl_xor_sync). Returns [(offset, [each lane's value after])]."""
    lanes, rows, mine = len(values), [], list(values)
    offset = lanes // 2
    while offset > 0:
        mine = [merge(mine[i], mine[i ^ offset]) for i in range(lanes)]
        rows.append((offset, list(mine)))
        offset >>= 1
    return rows


def softmax_figure():
    x = [1.0, 3.0, 0.0, 2.0, -1.0, 4.0, 2.0, 0.0]
    lanes = len(x)
    start = [(v, 1.0) for v in x]          # merge(mine, Running{x, 1}) from the identity
    rows = butterfly(start, merge_running)
    cw, ch, gap_x, row_gap = 88, 40, 10, 54
    left, top = 110, 122
    width = left + lanes * (cw + gap_x) + 10
    height = top + (len(rows) + 1) * (ch + row_gap) + 98
    fig = Figure("stage16-online-softmax", width, height,
                 "온라인 소프트맥스: (m, s) 쌍을 버터플라이로 합치기 (레인 8개로 줄인 워프)",
                 "합치기: m = max(m_a, m_b),  s = s_a·exp(m_a − m) + s_b·exp(m_b − m).  값 하나는 쌍 (x, 1)")
    fig.text("레인 i는 offset마다 레인 i ^ offset의 쌍과 합친다(__shfl_xor_sync). 세 단계 뒤 모든 레인이 행의 쌍을 갖는다.",
             16, 66, size=12, fill=GREY)
    for lane in range(lanes):
        fig.text(f"레인 {lane}", left + lane * (cw + gap_x) + cw / 2, top - 12, size=11,
                 anchor="middle", fill=GREY)

    def pair_cell(x, y, pair, final=False, changed=False):
        m, s = pair
        if final:
            fig.rect(x, y, cw, ch, fill=BLUE, stroke=INK)
            colour = WHITE
        elif changed:
            fig.rect(x, y, cw, ch, fill="#CFE3F1", stroke=BLUE, stroke_width=1.5)
            colour = INK
        else:
            fig.rect(x, y, cw, ch, fill=WHITE, stroke=GREY)
            colour = INK
        fig.text(f"m = {fmt(m)}", x + 8, y + 16, size=12, fill=colour, mono=True)
        fig.text(f"s = {fmt(s)}", x + 8, y + 33, size=12, fill=colour, mono=True)

    fig.text("x →", left - 12, top + ch / 2 + 4, size=12, anchor="end", mono=True)
    for lane, pair in enumerate(start):
        pair_cell(left + lane * (cw + gap_x), top, pair)
    prev = start
    for r_i, (offset, after) in enumerate(rows):
        y = top + (r_i + 1) * (ch + row_gap)
        fig.text(f"offset = {offset}", left - 12, y + ch / 2 + 4, size=12, anchor="end",
                 mono=True)
        for lane in range(lanes):
            partner = lane ^ offset
            sx = left + partner * (cw + gap_x) + cw / 2
            tx = left + lane * (cw + gap_x) + cw / 2
            fig.line(sx, y - row_gap + 2, tx + (3 if partner > lane else -3), y - 4,
                     colour=VERMILLION, width=1.1, arrow=True)
            fig.line(tx, y - row_gap + 2, tx, y - 4, colour=GREY, width=1, dash="3 3")
            rescaled = prev[lane][0] != after[lane][0]
            pair_cell(left + lane * (cw + gap_x), y, after[lane], final=offset == 1,
                      changed=rescaled)
        prev = after
    y = top + (len(rows) + 1) * (ch + row_gap) + 2
    total = sum(math.exp(v - max(x)) for v in x)
    fig.legend([
        (swatch(fill="#CFE3F1", stroke=BLUE), "m가 커져 자기 s를 exp(m_옛 − m_새)로 줄여 옮긴 레인"),
        (swatch(fill=BLUE), "행의 (m, s): 모든 레인이 같은 쌍"),
    ], 16, y, size=12)
    fig.lines([f"확인: max(x) = {fmt(max(x))}, Σ exp(x − {fmt(max(x))}) = {fmt(total)}.",
               "정확한 산술에서는 결합 법칙이 성립해 합치는 순서가 달라도 같은 쌍이 나온다(float에서는 마지막 자리가 다를 수 있다).",
               "빈 쌍(-inf, 0)은 항등원이다. 빈 쌍 둘을 합칠 때 exp(-inf − (-inf)) = NaN이 되지 않게 rescale이 0을 돌려준다."],
              16, y + 26, size=12, fill=GREY)
    return fig


# ---------------------------------------------------------------------------- stage 17


def dot(colour):
    """A legend swatch: a round point of `colour`."""
    return lambda f, x, y, box: f.circle(x + box / 2, y + box / 2, box / 2, fill=colour, stroke=INK)


def welford(values):
    """answers/stage17_layer_norm/todo.cu, TODO 5: count += 1; delta = x - mean;
    mean += delta / count; m2 += delta * (x - mean)."""
    count, mean, m2 = 0.0, 0.0, 0.0
    for x in values:
        count += 1
        delta = x - mean
        mean += delta / count
        m2 += delta * (x - mean)
    return (count, mean, m2)


def chan_merge(a, b):
    """answers/stage17_layer_norm/todo.cu, TODO 4 (Merge): n = a.count + b.count;
    delta = b.mean - a.mean; mean = a.mean + delta * (b.count / n);
    m2 = a.m2 + b.m2 + delta * delta * (a.count * b.count / n); two empty Stats stay empty."""
    n = a[0] + b[0]
    if n == 0:
        return (0.0, 0.0, 0.0)
    delta = b[1] - a[1]
    return (n, a[1] + delta * (b[0] / n), a[2] + b[2] + delta * delta * (a[0] * b[0] / n))


def welford_figure():
    values = [1.0, 2.0, 3.0, 5.0]
    leaves = [welford([v]) for v in values]
    left_pair, right_pair = welford(values[:2]), welford(values[2:])
    merged = chan_merge(left_pair, right_pair)
    assert chan_merge(chan_merge(leaves[0], leaves[1]), chan_merge(leaves[2], leaves[3])) == merged
    width, height = 990, 560
    fig = Figure("stage17-welford-merge", width, height,
                 "두 통계 합치기: {1, 2}와 {3, 5} (Chan, Golub, LeVeque)",
                 "Stats = (count, mean, M2). 값 하나는 (1, x, 0). 합친 M2 = M2_a + M2_b + δ²·n_a·n_b / n,  δ = mean_b − mean_a")
    bw, bh = 170, 54

    def stats_box(cx, y, stats, colour, text_colour=INK):
        x = cx - bw / 2
        fig.rect(x, y, bw, bh, fill=colour, stroke=INK, rx=4)
        n, mean, m2 = stats
        fig.text(f"count {fmt(n)}", x + 10, y + 16, size=12, mono=True, fill=text_colour)
        fig.text(f"mean  {fmt(mean)}", x + 10, y + 32, size=12, mono=True, fill=text_colour)
        fig.text(f"M2    {fmt(m2)}", x + 10, y + 48, size=12, mono=True, fill=text_colour)

    xs = [110, 300, 560, 750]
    y0, y1, y2 = 80, 190, 300
    for cx, stats in zip(xs, leaves):
        stats_box(cx, y0, stats, WHITE)
    mids = [(xs[0] + xs[1]) / 2, (xs[2] + xs[3]) / 2]
    for (a, b), cx, stats, colour, name in (((0, 1), mids[0], left_pair, "#CFE3F1", "부분 a"),
                                            ((2, 3), mids[1], right_pair, "#FBE3BF", "부분 b")):
        for i in (a, b):
            fig.line(xs[i], y0 + bh + 2, cx, y1 - 4, colour=GREY, arrow=True)
        stats_box(cx, y1, stats, colour)
        fig.text(name, cx + bw / 2 + 10, y1 + 32, size=12, weight="bold")
    top_x = (mids[0] + mids[1]) / 2
    for cx in mids:
        fig.line(cx, y1 + bh + 2, top_x, y2 - 4, colour=INK, width=1.5, arrow=True)
    stats_box(top_x, y2, merged, BLUE, WHITE)
    delta = right_pair[1] - left_pair[1]
    cross = delta * delta * left_pair[0] * right_pair[0] / merged[0]
    (n_a, mean_a, m2_a), (n_b, _, m2_b), (n, mean, m2) = left_pair, right_pair, merged
    fig.lines([f"δ = {fmt(right_pair[1])} − {fmt(mean_a)} = {fmt(delta)}",
               f"mean = {fmt(mean_a)} + {fmt(delta)} · {fmt(n_b)}/{fmt(n)} = {fmt(mean)}",
               f"M2 = {fmt(m2_a)} + {fmt(m2_b)} + {fmt(delta)}² · {fmt(n_a)} · {fmt(n_b)}/{fmt(n)}"
               f" = {fmt(m2_a + m2_b)} + {fmt(cross)} = {fmt(m2)}"],
              top_x + bw / 2 + 16, y2 + 14, size=12, mono=True)

    # The number line: the values, each group's mean, and the distance between the means.
    ly, lx0, scale = 450, 110, 120
    px = lambda v: lx0 + (v - 0.5) * scale
    fig.line(px(0.5), ly, px(5.5), ly, colour=INK, width=1.2)
    for t in range(1, 6):
        fig.line(px(t), ly - 4, px(t), ly + 4, colour=INK)
        fig.text(str(t), px(t), ly + 20, size=11, anchor="middle", mono=True, fill=GREY)
    for v, colour in zip(values, (BLUE, BLUE, ORANGE, ORANGE)):
        fig.circle(px(v), ly, 7, fill=colour, stroke=INK)
    for stats, colour, label, dy in ((left_pair, BLUE, "mean_a", -28), (right_pair, ORANGE, "mean_b", -28),
                                     (merged, INK, "합친 mean", 40)):
        fig.line(px(stats[1]), ly - 18, px(stats[1]), ly + 18, colour=colour, width=2.5,
                 dash=None if colour != INK else "4 3")
        fig.text(f"{label} = {fmt(stats[1])}", px(stats[1]), ly + dy, size=12, anchor="middle",
                 weight="bold")
    fig.line(px(left_pair[1]), ly - 46, px(right_pair[1]), ly - 46, colour=VERMILLION, width=2,
             arrow=True)
    fig.text(f"δ = {fmt(delta)}: 평균 사이의 거리가 M2에 {fmt(cross)}만큼 더한다", px(3.3), ly - 54,
             size=12, fill=VERMILLION, weight="bold", anchor="middle")
    fig.legend([(dot(BLUE), "부분 a = {1, 2}"), (dot(ORANGE), "부분 b = {3, 5}")], 16, height - 22)
    fig.text("세 번째 항을 빠뜨리면 M2는 2.5로, 실제 8.75의 3분의 1도 안 된다.", 360, height - 22,
             size=12, fill=GREY)
    return fig


def figures():
    return [
        ("stages/stage16_softmax/figures/online_softmax.svg", softmax_figure),
        ("stages/stage17_layer_norm/figures/welford_merge.svg", welford_figure),
    ]
