"""How a grid covers the input (stages 10, 13 and 14): two elements a block apart, the
grid-stride loop, and the ticket that picks the last block. Each drawing computes its indices
with the answer's expressions."""
from .draw import (BLUE, GREY, INK, LIGHT, PALE, VERMILLION, WHITE, Figure, fmt, span, swatch,
                   warp_cell, warp_colour, warp_swatch)
from .warp import shuffle_down_steps


def block_cell(fig, block, x, y, w, h, label, size=11):
    """An element read by block `block`: the block's colour (odd blocks hatched)."""
    warp_cell(fig, block, x, y, w, h, label, size=size)


def identity_cell(fig, x, y, w, h, label="0", size=11):
    fig.cell(x, y, w, h, label, fill=PALE, stroke=GREY, hatch=fig.hatch(GREY, "dots", 5, 0.8),
             size=size, weight="bold")


# ---------------------------------------------------------------------------- stage 10
def first_add_reads(n, block):
    """answers/stage10_first_add/todo.cu, TODO 1 (kElementsPerThread = 2):
    i = blockIdx.x * (2 * blockDim.x) + tid; first = i < n ? in[i] : 0;
    second = i + blockDim.x < n ? in[i + blockDim.x] : 0; sdata[tid] = first + second.
    Returns [(block, tid, i, i + block, whether each is < n)]."""
    grid = (n + 2 * block - 1) // (2 * block)
    return [(b, tid, b * 2 * block + tid, b * 2 * block + tid + block)
            for b in range(grid) for tid in range(block)]


def first_add_figure():
    n, block = 13, 4            # the lesson's walk-through
    reads = first_add_reads(n, block)
    grid = reads[-1][0] + 1
    pitch, cw, ch = 46, 42, 30
    left, top = 80, 118
    width = left + grid * 2 * block * pitch + 24
    fig = Figure("stage10-first-add", max(width, 860), 440,
                 "적재하며 첫 덧셈: 스레드마다 한 블록 간격으로 떨어진 원소 두 개",
                 f"n = {n}, 블록 크기 {block}. 블록 하나가 2 × {block} = {2 * block}개를 맡아 그리드 = ceil({n} / {2 * block}) = {grid}")
    fig.text("in", left - 10, top + ch / 2 + 4, size=12, anchor="end", mono=True)
    for b in range(grid):
        x0 = left + b * 2 * block * pitch
        fig.line(x0, top - 30, x0 + 2 * block * pitch - 4, top - 30, colour=warp_colour(b), width=3)
        fig.text(f"블록 {b}: in[{b * 2 * block}..{b * 2 * block + 2 * block - 1}]",
                 x0 + block * pitch, top - 38, size=12, anchor="middle", weight="bold")
    for i in range(grid * 2 * block):
        x = left + i * pitch
        fig.text(str(i), x + cw / 2, top - 9, size=10, anchor="middle", mono=True, fill=GREY)
        b, tid = i // (2 * block), i % block
        if i < n:
            block_cell(fig, b, x, top, cw, ch, f"t{tid}", size=12)
        else:
            identity_cell(fig, x, top, cw, ch, "밖", size=11)
    sy = top + 150
    fig.text("sdata", left - 10, sy + ch / 2 + 4, size=12, anchor="end", mono=True)
    short = []
    for b, tid, i, j in reads:
        x = left + b * 2 * block * pitch + (block / 2) * pitch + tid * pitch
        for src, dash in ((i, None), (j, "4 3")):
            sx = left + src * pitch + cw / 2
            fig.line(sx, top + ch + 2, x + cw / 2, sy - 4, colour=INK if src < n else GREY,
                     width=1.2, dash=dash, arrow=True)
        if j < n:
            block_cell(fig, b, x, sy, cw, ch, str(tid), size=12)
        else:
            short.append((b, tid))
            fig.cell(x, sy, cw, ch, str(tid), fill=WHITE, stroke=warp_colour(b), stroke_width=2,
                     size=12, weight="bold")
    for b in range(grid):
        x0 = left + b * 2 * block * pitch + (block / 2) * pitch
        fig.text(f"블록 {b}의 sdata[0..{block - 1}]", x0 + block * pitch / 2, sy + ch + 20,
                 size=12, anchor="middle")
    y = sy + ch + 58
    fig.legend([
        (swatch(fill=warp_colour(0)), "블록 0이 읽는 원소 (칸의 글자 = 읽는 스레드)"),
        (warp_swatch(1), "블록 1이 읽는 원소"),
        (swatch(fill=PALE, stroke=GREY, hatch_colour=GREY, kind="dots"), "n 밖: 읽지 않고 0"),
    ], 16, y, size=12)
    b_short = short[0][0] if short else 0
    threads = span(short[0][1], short[-1][1]) if short else "-"
    fig.lines([f"스레드 tid는 i = blockIdx.x × {2 * block} + tid(실선)와 i + {block}(점선)을 읽어 더한 뒤 sdata[tid]에 싣는다.",
               "읽기 한 번마다 이웃 스레드가 이웃 원소를 읽으므로 두 읽기 모두 병합된다. 경계 검사는 두 읽기 모두에 있다:",
               f"블록 {b_short}의 스레드 {threads}은 두 번째 원소가 n 밖이라 0을 더한다(테두리만 있는 sdata 칸)."],
              16, y + 26, size=12, fill=GREY)
    return fig


# ---------------------------------------------------------------------------- stage 13
def grid_stride_loads(n, block, grid, in_flight=4):
    """answers/stage13_thread_coarsening/todo.cu, TODO 1 (kLoadsInFlight = 4):
    grid_threads = blockDim.x * gridDim.x; i = blockIdx.x * blockDim.x + threadIdx.x;
    while (i + 3 * grid_threads < n) { load in[i + k * grid_threads], k = 0..3; i += 4 * grid_threads; }
    then the remainder loop adds in[i] one at a time, i += grid_threads while i < n.
    Returns {element: (global thread, trip, k or None for the remainder loop)}."""
    grid_threads = block * grid
    loads = {}
    for thread in range(grid_threads):
        i, trip = thread, 0
        while i + (in_flight - 1) * grid_threads < n:
            for k in range(in_flight):
                loads[i + k * grid_threads] = (thread, trip, k)
            i += in_flight * grid_threads
            trip += 1
        while i < n:
            loads[i] = (thread, trip, None)
            i += grid_threads
    return loads


def grid_stride_figure():
    n, block, grid = 37, 4, 2
    grid_threads = block * grid
    loads = grid_stride_loads(n, block, grid)
    assert sorted(loads) == list(range(n))  # every element once
    rows = (n + grid_threads - 1) // grid_threads
    cw, ch, gap = 48, 30, 4
    left, top = 150, 118
    width = left + grid_threads * (cw + gap) + 330
    height = top + rows * (ch + gap) + 100
    fig = Figure("stage13-grid-stride", width, height,
                 "그리드 스트라이드 루프: 스레드 8개짜리 그리드가 n = 37을 훑는다",
                 f"블록 {grid}개 × 스레드 {block}개. 줄 하나가 grid_threads = {grid_threads}칸, 칸의 수 = 원소의 인덱스")
    for b in range(grid):
        x0 = left + b * block * (cw + gap)
        fig.line(x0, top - 30, x0 + block * (cw + gap) - gap, top - 30, colour=warp_colour(b),
                 width=3)
        fig.text(f"블록 {b}", x0 + block * (cw + gap) / 2, top - 38, size=12, anchor="middle",
                 weight="bold")
    for t in range(grid_threads):
        fig.text(f"스레드 {t}", left + t * (cw + gap) + cw / 2, top - 10, size=11,
                 anchor="middle", fill=GREY)
    for row in range(rows):
        y = top + row * (ch + gap)
        for t in range(grid_threads):
            i = row * grid_threads + t
            x = left + t * (cw + gap)
            if i >= n:
                fig.cell(x, y, cw, ch, "", fill=WHITE, stroke=GREY, dash="3 2")
                continue
            thread, trip, k = loads[i]
            assert thread == t
            if k is None:
                fig.cell(x, y, cw, ch, str(i), fill=WHITE, stroke=warp_colour(t // block),
                         stroke_width=2, size=12, weight="bold")
            else:
                block_cell(fig, t // block, x, y, cw, ch, str(i), size=12)
        first = loads[row * grid_threads]
        label = (f"바퀴 {first[1] + 1}, 로드 k = {first[2]}" if first[2] is not None
                 else "나머지 루프")
        fig.text(label, left - 10, y + ch / 2 + 4, size=12, anchor="end")
    bx = left + grid_threads * (cw + gap) + 6
    trip_rows = [r for r in range(rows) if loads[r * grid_threads][2] is not None]
    y0, y1 = top + trip_rows[0] * (ch + gap), top + (trip_rows[-1] + 1) * (ch + gap) - gap
    fig.line(bx, y0, bx + 8, y0)
    fig.line(bx + 8, y0, bx + 8, y1)
    fig.line(bx, y1, bx + 8, y1)
    fig.lines(["한 바퀴: 스레드마다 로드 4개를 먼저 띄워 두고",
               "(i, i + 8, i + 16, i + 24), 값이 오면 더한다.",
               "i + 3 × 8 < n인 동안 돈다."], bx + 16, y0 + 16, size=12)
    ry = top + (rows - 1) * (ch + gap)
    fig.text("남은 원소는 하나씩 (i < n)", bx + 16, ry + ch / 2 + 4, size=12)
    y = top + rows * (ch + gap) + 26
    fig.footer([
        (swatch(fill=warp_colour(0)), "블록 0의 스레드가 바퀴에서 읽음"),
        (warp_swatch(1), "블록 1"),
        (swatch(stroke=INK), "나머지 루프에서 읽음"),
        (swatch(stroke=GREY, dash="3 2"), "n 밖"),
    ], ["같은 줄의 이웃 스레드는 이웃 원소를 읽어 로드가 병합된다. 그리드는 n이 아니라 장치(SM 수 × SM당 블록 수)에서",
               "정해지고, n이 커지면 바퀴 수가 는다. 각 스레드의 sum은 block_reduce_sum으로 블록 합이 된다."], y)
    return fig


# ---------------------------------------------------------------------------- stage 14
def chunk_loads(vector_count, block, grid, in_flight=4):
    """answers/stage14_single_pass/todo.cu, TODO 1: chunk = kVectorsInFlight * blockDim.x;
    first runs from blockIdx.x * chunk while first < vector_count, stepping gridDim.x * chunk;
    index = first + k * blockDim.x + threadIdx.x for k = 0 .. 3, and an index at or past
    vector_count loads zeros. Returns [(first, block, trip, [(index, thread, k), ...])]."""
    chunk = in_flight * block
    chunks = []
    for b in range(grid):
        first, trip = b * chunk, 0
        while first < vector_count:
            loads = [(first + k * block + t, t, k) for k in range(in_flight) for t in range(block)]
            chunks.append((first, b, trip, loads))
            first += grid * chunk
            trip += 1
    return sorted(chunks)


def chunks_figure():
    vector_count, block, grid = 40, 4, 2      # the lesson's walk-through
    chunks = chunk_loads(vector_count, block, grid)
    cw, ch, gap, k_gap = 36, 30, 2, 10
    left, top, row_h = 190, 104, 74
    chunk_w = 4 * (block * (cw + gap) + k_gap)
    fig = Figure("stage14-chunks", left + chunk_w + 20, top + len(chunks) * row_h + 96,
                 "덩어리: 블록의 한 바퀴는 연속된 float4 한 구간",
                 f"블록 {grid}개 × 스레드 {block}개, kVectorsInFlight = 4: 덩어리 = 4 × {block} = {4 * block}개의 float4, vector_count = {vector_count}")
    for row, (first, b, trip, loads) in enumerate(chunks):
        y = top + row * row_h
        fig.text(f"덩어리 {first // (4 * block)}", left - 12, y + 12, size=12, anchor="end",
                 weight="bold")
        fig.text(f"블록 {b}의 {trip + 1}바퀴", left - 12, y + 30, size=12, anchor="end")
        for index, t, k in loads:
            x = left + k * (block * (cw + gap) + k_gap) + t * (cw + gap)
            if row == 0:
                fig.text(f"t{t}", x + cw / 2, top - 10, size=10, anchor="middle", mono=True,
                         fill=GREY)
            if index < vector_count:
                warp_cell(fig, b, x, y, cw, ch, str(index), size=11)
            else:
                fig.cell(x, y, cw, ch, str(index), fill=WHITE, stroke=GREY, text_fill=GREY,
                         dash="3 2", size=11)
        for k in range(4):
            x = left + k * (block * (cw + gap) + k_gap)
            fig.text(f"k = {k}", x + block * (cw + gap) / 2, y + ch + 16, size=11,
                     anchor="middle", fill=GREY)
    fig.text("스레드", left - 12, top - 10, size=10, anchor="end", fill=GREY)
    y = top + len(chunks) * row_h + 4
    fig.footer([
        (swatch(fill=warp_colour(0)), "블록 0이 읽는 float4 (칸의 수 = 인덱스)"),
        (warp_swatch(1), "블록 1"),
        (swatch(stroke=GREY, dash="3 2"), "vector_count 이상: 읽지 않고 0"),
    ], ["스레드 t는 덩어리마다 first + k·blockDim.x + t(k = 0..3)를 먼저 모두 띄워 둔 뒤 더한다. k가 같은 로드끼리는",
        "연속이라 병합되고, 블록의 한 바퀴는 연속된 한 구간이다. 블록 b는 덩어리 b, b + gridDim.x, …를 읽는다."], y)
    return fig


def ticket_order(work):
    """Blocks finish in an order no one chooses; here, by how long each one's part took.
    answers/stage14_single_pass/todo.cu, TODO 2: each block stores block_sums[blockIdx.x],
    then finished_before = fetch_add(1, acq_rel) on the ticket; is_last_block =
    (finished_before == gridDim.x - 1). Returns {block: ticket}."""
    order = sorted(range(len(work)), key=lambda b: (work[b], b))
    return {b: t for t, b in enumerate(order)}


def ticket_figure():
    # The lesson's walk-through: three blocks whose sums are 10.5, 7.25 and 3.0, arriving in
    # the order 2, 0, 1 (here because their parts took 8, 10 and 6 time units).
    work = [8, 10, 6]
    sums = [10.5, 7.25, 3.0]
    grid = len(work)
    # TODO 3's block_reduce_sum: thread b holds block_sums[b], the rest 0, folded by the shuffle.
    total = shuffle_down_steps(sums + [0.0] * (32 - grid))[-1][2][0]
    tickets = ticket_order(work)
    last = next(b for b, t in tickets.items() if t == grid - 1)
    unit, left, top, row_h = 34, 110, 96, 40
    final_len = 7
    end = max(work) + 1 + final_len
    width = left + (end + 1) * unit + 40
    height = top + grid * row_h + 150
    fig = Figure("stage14-ticket", width, height, "런치 한 번: 블록 합 게시, 번호표, 마지막 블록",
                 f"그리드 {grid}. 블록이 끝나는 순서는 정해져 있지 않다. 번호표 = 먼저 끝난 블록 수")
    for t in range(0, end + 1):
        fig.line(left + t * unit, top - 6, left + t * unit, top + grid * row_h, colour=LIGHT)
    fig.text("시간 →", left + end * unit, top - 12, size=11, anchor="end", fill=GREY)
    for b in range(grid):
        y = top + b * row_h + 6
        fig.text(f"블록 {b}", left - 12, y + 18, size=12, anchor="end")
        fig.rect(left, y, work[b] * unit, 24, fill=LIGHT, stroke=GREY)
        fig.text(f"자기 몫을 더함: 블록 합 {fmt(sums[b])}", left + 8, y + 16, size=11, fill=INK)
        x = left + work[b] * unit
        is_last = b == last
        fig.cell(x, y, unit, 24, "게시", fill=SKY_FILL, stroke=BLUE, size=10, mono=False)
        fig.circle(x + unit * 1.5, y + 12, 12, fill=VERMILLION if is_last else WHITE,
                   stroke=VERMILLION if is_last else INK, stroke_width=1.5)
        fig.text(str(tickets[b]), x + unit * 1.5, y + 17, size=12, anchor="middle",
                 weight="bold", fill=WHITE if is_last else INK, mono=True)
        if is_last:
            fx = x + 2 * unit + 4
            fig.rect(fx, y, final_len * unit - 8, 24, fill="#F9DCC9", stroke=VERMILLION,
                     stroke_width=2)
            fig.text(f"block_sums[0..{grid - 1}]를 읽어 더함 = {fmt(total)}", fx + 8, y + 16,
                     size=11, fill=INK, weight="bold")
        else:
            fig.text("끝", x + unit * 2 + 6, y + 17, size=11, fill=GREY)
    y = top + grid * row_h + 28
    order = sorted(range(grid), key=lambda b: tickets[b])
    fig.text("번호표 카운터: " + " → ".join(
        ["0"] + [f"{t + 1} (블록 {b})" for t, b in enumerate(order)]) + " → 마지막 블록이 0으로 되돌림",
        16, y, size=12, mono=False)
    y += 28
    fig.legend([
        (swatch(fill=SKY_FILL, stroke=BLUE), "스레드 0이 block_sums[blockIdx.x]에 씀 (게시)"),
        (lambda f, x, yy, box: f.circle(x + box / 2, yy + box / 2, box / 2, fill=WHITE, stroke=INK),
         "fetch_add가 돌려준 번호표"),
    ], 16, y, size=12)
    y += 24
    fig.legend([
        (lambda f, x, yy, box: f.circle(x + box / 2, yy + box / 2, box / 2, fill=VERMILLION),
         f"번호표 {grid - 1} = gridDim.x − 1: 마지막 블록"),
        (swatch(fill="#F9DCC9", stroke=VERMILLION), "마지막 블록만 하는 일"),
    ], 16, y, size=12)
    fig.lines(["번호표를 획득-해제로 뽑으므로, 마지막 블록이 번호표를 받았을 때 앞의 블록들이 게시한 합이 모두 보인다.",
               "어느 블록이 마지막이 되든 덧셈의 모양은 블록 번호로만 정해져서 합이 실행마다 비트 단위로 같다."],
              16, y + 28, size=12, fill=GREY)
    return fig


SKY_FILL = "#CFE3F1"


def figures():
    return [
        ("stages/stage10_first_add/figures/first_add.svg", first_add_figure),
        ("stages/stage13_thread_coarsening/figures/grid_stride.svg", grid_stride_figure),
        ("stages/stage14_single_pass/figures/chunks.svg", chunks_figure),
        ("stages/stage14_single_pass/figures/ticket.svg", ticket_figure),
    ]
