"""The block's tree in shared memory (stages 07, 08, 09 and 15): which thread adds which slot
at each step, which warps and lanes work, and which banks a warp's accesses touch. Each fold
is written as the answer's loop is, and every picture is drawn from these lists."""
from .draw import (BLUE, GREY, INK, LIGHT, PALE, VERMILLION, WHITE, Figure, fmt, idle_cell,
                   swatch, warp_cell, warp_colour, warp_swatch)

WARP = 32   # threads in a warp
BANKS = 32  # shared memory banks, one 4-byte word each in turn: word i is in bank i % 32


# A fold is a list of steps (stride, [(thread, target word, source word), ...]): in that step
# each listed thread adds sdata[source] into sdata[target].

def interleaved(block):
    """answers/stage07_interleaved/todo.cu, TODO 2:
    for (stride = 1; stride < blockDim.x; stride *= 2)
      if (tid % (2 * stride) == 0) sdata[tid] += sdata[tid + stride];"""
    steps, stride = [], 1
    while stride < block:
        steps.append((stride, [(tid, tid, tid + stride) for tid in range(block)
                               if tid % (2 * stride) == 0]))
        stride *= 2
    return steps


def strided_index(block):
    """The variant between stages 07 and 08 (stages/stage08_sequential/README.md, 「중간 단계」;
    bench/experiments/variants/stage08_sequential/strided_index.patch):
    for (stride = 1; stride < blockDim.x; stride *= 2) {
      index = 2 * stride * tid; if (index < blockDim.x) sdata[index] += sdata[index + stride]; }"""
    steps, stride = [], 1
    while stride < block:
        steps.append((stride, [(tid, 2 * stride * tid, 2 * stride * tid + stride)
                               for tid in range(block) if 2 * stride * tid < block]))
        stride *= 2
    return steps


def sequential(block, last=0):
    """answers/stage08_sequential/todo.cu, TODO 1 (and stages 09, 10, 15's trees):
    for (stride = blockDim.x / 2; stride > last; stride >>= 1)
      if (tid < stride) sdata[tid] += sdata[tid + stride];
    (stage 11's block loop stops at stride > 32: `last` = 32)."""
    steps, stride = [], block // 2
    while stride > last:
        steps.append((stride, [(tid, tid, tid + stride) for tid in range(stride)]))
        stride >>= 1
    return steps


def run_fold(values, steps, op=lambda a, b: a + b):
    """The slots after each step, starting from `values`."""
    slots, rows = list(values), [list(values)]
    for _, work in steps:
        for _, target, source in work:
            slots[target] = op(slots[target], slots[source])
        rows.append(list(slots))
    return rows


def lanes_per_warp(work, block):
    """How many lanes of each warp of the block work in a step (warp = tid / 32)."""
    counts = [0] * ((block + WARP - 1) // WARP)
    for tid, _, _ in work:
        counts[tid // WARP] += 1
    return counts


def bank_degree(words):
    """An access's n-way: the most distinct words of one bank among those a warp touches."""
    per_bank = {}
    for word in set(words):
        per_bank.setdefault(word % BANKS, set()).add(word)
    return max((len(w) for w in per_bank.values()), default=0)


# ---------------------------------------------------------------------------- tree with values
def tree_figure(name, title, subtitle, values, steps, op=lambda a, b: a + b,
                written="sdata[tid] += sdata[tid + stride]", identity_slots=(), caption=()):
    """The slots of an 8-thread block step by step: the thread that adds, the slot it reads,
    and which lanes of the block's one warp work."""
    block = len(values)
    rows = run_fold(values, steps, op)
    cw, ch, gap_x, row_gap = 52, 30, 8, 46
    left, top = 112, 96
    right_x = left + block * (cw + gap_x) + 12
    width = right_x + 250
    height = top + len(rows) * ch + (len(rows) - 1) * row_gap + 40 + 20 * len(caption) + 34
    fig = Figure(name, width, height, title, subtitle)
    fig.text("tid", left - 12, top - 12, size=12, anchor="end", mono=True)
    for tid in range(block):
        fig.text(str(tid), left + tid * (cw + gap_x) + cw / 2, top - 12, size=12,
                 anchor="middle", mono=True)
    for r_i, slots in enumerate(rows):
        y = top + r_i * (ch + row_gap)
        if r_i == 0:
            fig.text("처음 sdata", left - 12, y + ch / 2 + 4, size=12, anchor="end")
            work = []
        else:
            stride, work = steps[r_i - 1]
            fig.text(f"stride = {stride}", left - 12, y + ch / 2 + 4, size=12, anchor="end",
                     mono=True)
        targets = {t for _, t, _ in work}
        for slot, value in enumerate(slots):
            x = left + slot * (cw + gap_x)
            label = fmt(value)
            if slot in targets:
                warp_cell(fig, 0, x, y, cw, ch, label, size=13)
            elif r_i == 0 and slot in identity_slots:
                fig.cell(x, y, cw, ch, label, fill=PALE, stroke=GREY,
                         hatch=fig.hatch(GREY, "dots", 5, 0.8), size=12)
            else:
                idle_cell(fig, x, y, cw, ch, label, size=12)
        if work:
            prev_y = y - row_gap
            for tid, target, source in work:
                sx = left + source * (cw + gap_x) + cw / 2
                tx = left + target * (cw + gap_x) + cw / 2
                fig.line(tx, prev_y + 2, tx, y - 3, colour=BLUE, width=1.6, arrow=True)
                fig.curve(sx, prev_y + 2, (sx + tx) / 2 + 4, prev_y + row_gap * 0.35,
                          tx + 5, y - 3, colour=VERMILLION, width=1.6, dash="5 3")
            threads = ", ".join(str(t) for t, _, _ in work)
            fig.text(f"일하는 스레드: {threads}", right_x, y + 12, size=12)
            fig.text(f"레인 {len(work)}/{block} 일함, {block - len(work)}개 쉼", right_x, y + 28,
                     size=12, fill=GREY)
    ly = height - 20 - 20 * len(caption)
    x = fig.legend([
        (warp_swatch(0), f"이 단계에 쓰인 칸: {written}"),
        (swatch(stroke=GREY), "쓰이지 않은 칸"),
    ], 16, ly)
    fig.line(x, ly - 5, x + 30, ly - 5, colour=VERMILLION, width=1.6, dash="5 3", arrow=True)
    verb = "비교할" if op is max else "더할"
    fig.text(f"{verb} 값을 읽어 오는 칸", x + 46, ly, size=12)
    fig.lines(list(caption), 16, ly + 22, size=12, fill=GREY)
    return fig


# ---------------------------------------------------------------------------- activity map
def activity_figure(name, title, subtitle, block, steps, caption=()):
    """Threads (columns) by step (rows) for a block of several warps: who works, coloured
    and hatched by warp, and for each warp whether all, some or none of its lanes work."""
    warps = (block + WARP - 1) // WARP
    pitch, cw, ch, row_gap = 10, 9, 20, 8
    left, top = 112, 108
    grid_w = block * pitch
    status_x = left + grid_w + 16
    status_w = 118
    width = status_x + warps * (status_w + 8) + 8
    height = top + len(steps) * (ch + row_gap) + 78 + 18 * len(caption)
    fig = Figure(name, width, height, title, subtitle)
    for w in range(warps):
        x0, x1 = left + w * WARP * pitch, left + min(block, (w + 1) * WARP) * pitch - 1
        fig.line(x0, top - 30, x1, top - 30, colour=warp_colour(w), width=3)
        fig.text(f"워프 {w} (스레드 {w * WARP}–{min(block, (w + 1) * WARP) - 1})",
                 (x0 + x1) / 2, top - 38, size=12, anchor="middle", weight="bold")
        fig.text(f"워프 {w}", status_x + w * (status_w + 8) + status_w / 2, top - 12, size=12,
                 anchor="middle", weight="bold")
    for tid in range(0, block, 8):
        fig.text(str(tid), left + tid * pitch + cw / 2, top - 12, size=10, anchor="middle",
                 mono=True, fill=GREY)
    fig.text("tid", left - 12, top - 12, size=11, anchor="end", mono=True, fill=GREY)
    for s_i, (stride, work) in enumerate(steps):
        y = top + s_i * (ch + row_gap)
        fig.text(f"stride = {stride}", left - 12, y + 14, size=12, anchor="end", mono=True)
        active = {t for t, _, _ in work}
        for tid in range(block):
            x = left + tid * pitch
            if tid in active:
                warp_cell(fig, tid // WARP, x, y, cw, ch)
            else:
                idle_cell(fig, x, y, cw, ch)
        for w, count in enumerate(lanes_per_warp(work, block)):
            x = status_x + w * (status_w + 8)
            lanes = min(WARP, block - w * WARP)
            if count == lanes:
                fig.cell(x, y, status_w, ch, f"{count}/{lanes} 전부", fill=LIGHT, stroke=GREY,
                         size=11, mono=False)
            elif count == 0:
                fig.cell(x, y, status_w, ch, f"0/{lanes} 쉼", fill=WHITE, stroke=GREY,
                         text_fill=GREY, size=11, mono=False, dash="3 2")
            else:
                fig.rect(x, y, status_w, ch, fill=WHITE, stroke=VERMILLION, stroke_width=1.5,
                         hatch=fig.hatch("#F4C7A8", "diagonal", 6, 2))
                fig.text(f"{count}/{lanes} 일부", x + status_w / 2, y + 14, size=11,
                         anchor="middle", weight="bold")
    ly = top + len(steps) * (ch + row_gap) + 26
    items = [(warp_swatch(w), f"워프 {w}의 일하는 스레드") for w in range(min(warps, 2))]
    items.append((swatch(stroke=GREY), "쉬는 스레드"))
    fig.legend(items, 16, ly, size=12)
    fig.legend([
        (swatch(fill=LIGHT, stroke=GREY), "워프 전부 일함"),
        (swatch(stroke=VERMILLION, hatch_colour="#F4C7A8"),
         "일부만 일함: 워프 안에서 레인이 갈림, 노는 레인도 명령어를 지남"),
        (swatch(stroke=GREY, dash="3 2"), "워프 전체가 쉼"),
    ], 16, ly + 24, size=12)
    fig.lines(list(caption), 16, ly + 50, size=12, fill=GREY)
    return fig


# ---------------------------------------------------------------------------- banks
def bank_figure(name, title, subtitle, panels, caption=()):
    """For each fold and step, the 32 banks that warp 0's `sdata[target]` access touches:
    how many distinct words of each bank, and the access's n-way (1 = no conflict).
    `panels` is [(heading, [(label, steps), ...]), ...]."""
    cw, ch, gap = 19, 20, 3
    left, top = 230, 86
    grid_w = BANKS * cw
    right_x = left + grid_w + 12
    width = right_x + 150
    rows = sum(1 + sum(1 + len(steps) for _, steps in folds) for _, folds in panels)
    height = top + rows * (ch + gap) + 34 * len(panels) + 30 + 18 * len(caption)
    fig = Figure(name, width, height, title, subtitle)
    y = top
    for heading, folds in panels:
        fig.text(heading, 16, y + 14, size=13, weight="bold")
        for b in range(0, BANKS, 4):
            fig.text(str(b), left + b * cw + cw / 2, y + 14, size=10, anchor="middle",
                     mono=True, fill=GREY)
        fig.text("뱅크 →", left - 8, y + 14, size=11, anchor="end", fill=GREY)
        fig.text("워프 0", right_x, y + 14, size=11, fill=GREY)
        y += ch + gap + 6
        for label, steps in folds:
            fig.text(label, 16, y + 14, size=12, weight="bold")
            y += ch + gap
            for stride, work in steps:
                words = [target for tid, target, _ in work if tid < WARP]
                fig.text(f"stride = {stride}", 32, y + 14, size=12, mono=True)
                fig.text(f"레인 {len(words)}", left - 8, y + 14, size=11, anchor="end",
                         fill=GREY)
                per_bank = [0] * BANKS
                for word in set(words):
                    per_bank[word % BANKS] += 1
                fig.rect(left, y, BANKS * cw - 1, ch, fill=WHITE, stroke=LIGHT)
                fig.grid_lines(left, y, cw, ch, BANKS, LIGHT)
                for b, count in enumerate(per_bank):
                    x = left + b * cw
                    if count == 1:
                        fig.cell(x, y, cw - 1, ch, "1", fill="#CFE3F1", stroke=BLUE, size=11)
                    elif count > 1:
                        fig.cell(x, y, cw - 1, ch, str(count), fill=VERMILLION, text_fill=WHITE,
                                 stroke=INK, stroke_width=2, size=12, weight="bold")
                degree = bank_degree(words)
                if degree == 0:
                    fig.text("일 없음", right_x, y + 14, size=12, fill=GREY)
                elif degree == 1:
                    fig.text("충돌 없음", right_x, y + 14, size=12)
                else:
                    fig.text(f"{degree}-way 충돌", right_x, y + 14, size=12, weight="bold",
                             fill=VERMILLION)
                y += ch + gap
        y += 28
    fig.legend([
        (swatch(fill="#CFE3F1", stroke=BLUE), "뱅크의 워드 하나: 한 번에 처리"),
        (swatch(fill=VERMILLION), "같은 뱅크의 다른 워드 n개 (칸의 수 n): n번에 나뉘어 처리"),
    ], 16, y, size=12)
    fig.lines(list(caption), 16, y + 24, size=12, fill=GREY)
    return fig


# ---------------------------------------------------------------------------- passes (stage 09)
def passes_figure(name, title, subtitle, values, block, caption=()):
    """stage 09: the last block filled with the identity 0, and each pass's block sums as the
    next pass's input (answers/stage09_any_length/todo.cu: sdata[tid] = (i < n) ? in[i] : 0;
    common/harness/geometry.cpp: pass_grids repeats ceil(n / per_block) until 1)."""
    cw, ch, gap_b = 40, 28, 18
    left, top = 190, 92
    passes, n, data = [], len(values), list(values)
    buffers = ["in", "partials", "partials_alt", "partials"]
    while True:
        grid = (n + block - 1) // block
        blocks = []
        for b in range(grid):
            slots = [data[b * block + t] if b * block + t < n else None for t in range(block)]
            blocks.append(slots)
        sums = [sum(v for v in slots if v is not None) for slots in blocks]
        passes.append((n, grid, blocks, sums))
        data, n = sums, grid
        if grid == 1:
            break
    blocks_w = max(len(p[2]) for p in passes) * (block * cw + gap_b)
    width = left + blocks_w + 20
    height = top + len(passes) * 150 + 16 + 18 * len(caption)
    fig = Figure(name, width, height, title, subtitle)
    y = top
    for p_i, (n, grid, blocks, sums) in enumerate(passes):
        fig.text(f"패스 {p_i + 1}", 16, y + 18, size=13, weight="bold")
        fig.text(f"n = {n}, 그리드 = {grid}", 16, y + 36, size=12, fill=GREY)
        fig.text(f"{buffers[p_i]} →", left - 8, y + 18, size=12, anchor="end", mono=True)
        for b, slots in enumerate(blocks):
            x0 = left + b * (block * cw + gap_b)
            fig.text(f"블록 {b}", x0 + block * cw / 2, y - 6, size=11, anchor="middle",
                     fill=GREY)
            for t, value in enumerate(slots):
                x = x0 + t * cw
                if value is None:
                    fig.cell(x, y, cw - 2, ch, "0", fill=PALE, stroke=GREY,
                             hatch=fig.hatch(GREY, "dots", 5, 0.8), size=12)
                else:
                    fig.cell(x, y, cw - 2, ch, fmt(value), fill="#CFE3F1", stroke=BLUE, size=12)
            sx = x0 + block * cw / 2 - cw / 2
            fig.line(x0 + block * cw / 2, y + ch + 2, sx + cw / 2, y + ch + 40, colour=INK,
                     width=1.2, arrow=True)
            fig.cell(sx, y + ch + 44, cw - 2, ch, fmt(sums[b]), fill=BLUE, text_fill=WHITE,
                     size=12, weight="bold")
        fig.text(f"블록 합 → {buffers[p_i + 1]}", left - 8, y + ch + 62, size=12, anchor="end",
                 mono=True)
        y += 150
    fig.legend([
        (swatch(fill="#CFE3F1", stroke=BLUE), "읽은 값 (i < n)"),
        (swatch(fill=PALE, stroke=GREY, hatch_colour=GREY, kind="dots"),
         "i ≥ n: 읽지 않고 항등원 0"),
        (swatch(fill=BLUE), "블록 합 = 다음 패스의 입력"),
    ], 16, y - 8, size=12)
    fig.lines(list(caption), 16, y + 16, size=12, fill=GREY)
    return fig


# ---------------------------------------------------------------------------- the figures
BANKS_SUBTITLE = "뱅크 = 워드 인덱스 % 32 (4바이트 워드). 칸의 수 = 그 뱅크에서 워프 0이 건드린 서로 다른 워드 수"


def fold_figures(stage, folder, name, active, rule, values, fold, tree_caption, warps_caption):
    """A fold's two pictures: its 8-thread tree with values, and its 64-thread warp map."""
    return [
        (folder + "tree_8.svg", lambda: tree_figure(
            f"{stage}-tree-8", f"{name}: 스레드 8개짜리 블록", rule, values, fold(8),
            caption=tree_caption)),
        (folder + "warps_64.svg", lambda: activity_figure(
            f"{stage}-warps-64", f"{name}: 스레드 64개(워프 2개)의 단계별 일",
            f"칸 하나가 스레드 하나. 채운 칸 = {active}인 스레드", 64, fold(64),
            caption=warps_caption)),
    ]


def figures():
    """(path under the repository, function returning the Figure) for these stages."""
    s07 = "stages/stage07_interleaved/figures/"
    s08 = "stages/stage08_sequential/figures/"
    s09 = "stages/stage09_any_length/figures/"
    s15 = "stages/stage15_max/figures/"
    return [
        *fold_figures(
            "stage07", s07, "인터리브 주소 지정", "tid % (2*stride) == 0",
            "tid % (2*stride) == 0인 스레드가 stride만큼 오른쪽 칸을 자기 칸에 더한다",
            [2, 5, 1, 4, 6, 3, 8, 7], interleaved,
            ["일하는 스레드 사이의 간격이 단계마다 두 배로 벌어진다. 스레드 8개는 워프 하나의 레인 0–7이라,",
             "stride 1에서 이미 레인 절반이 쉬고, 그 워프는 모든 단계를 끝까지 실행한다."],
            ["stride 1–16에서는 두 워프 모두 레인 일부만 일한다. 어느 워프도 단계를 건너뛰지 못하고,",
             "노는 레인도 술어가 꺼진 채로 명령어를 지난다. stride 32에서는 워프 1 전체가 쉰다."]),
        (s07 + "banks.svg", lambda: bank_figure(
            "stage07-banks", "인터리브 주소 지정의 뱅크: 워프 0이 건드리는 sdata[tid]",
            BANKS_SUBTITLE,
            [("블록 8 (워프 하나, 레인 0–7)", [("stage 07: index = tid", interleaved(8))]),
             ("블록 64 (워프 2개)", [("stage 07: index = tid", interleaved(64))])],
            caption=["일하는 레인은 자기 칸 sdata[tid]와 sdata[tid + stride]만 건드린다. 한 워프의 tid는 연속된 32개라",
                     "레인마다 뱅크가 다르다. 이 커널이 느린 이유는 뱅크 충돌이 아니라 노는 레인과 % 계산이다."])),
        *fold_figures(
            "stage08", s08, "순차 주소 지정", "tid < stride",
            "tid < stride인 스레드가 위쪽 절반 sdata[tid + stride]를 자기 칸에 포갠다",
            [5, 2, 8, 1, 3, 6, 4, 9], sequential,
            ["일하는 스레드가 언제나 번호가 가장 낮은 스레드들이라, 큰 블록에서는 워프가 통째로 일하거나 통째로 쉰다",
             "(아래 블록 64 그림). 블록 8은 워프 하나뿐이라 여기서는 레인이 줄어드는 것만 보인다."],
            ["stride 32에서 워프 0은 32 레인 모두 일하고 워프 1은 통째로 쉰다. 워프 안에서 레인이 갈리는 것은",
             "stride 16–1, 그것도 워프 0 하나뿐이다(stage 11이 다루는 마지막 워프)."]),
        (s08 + "banks.svg", lambda: bank_figure(
            "stage08-banks", "세 접기 방식의 뱅크: 워프 0이 건드리는 sdata[index]",
            BANKS_SUBTITLE,
            [("블록 8 (워프 하나, 레인 0–7)",
              [("stage 07: index = tid", interleaved(8)),
               ("변형: index = 2*stride*tid", strided_index(8)),
               ("stage 08: index = tid", sequential(8))]),
             ("블록 64 (워프 2개)",
              [("stage 07: index = tid", interleaved(64)),
               ("변형: index = 2*stride*tid", strided_index(64)),
               ("stage 08: index = tid", sequential(64))])],
            caption=["블록 8은 워드가 8개뿐이라 어느 방식도 충돌하지 않는다. 블록 64에서 인덱스를 늘린 변형은 워드 0과 32처럼",
                     "32 떨어진 워드를 한 워프가 함께 건드려 2-way가 되고, 블록이 클수록 n이 커진다(블록 256에서 8-way).",
                     "sdata[index + stride] 읽기도 한 칸 옆 뱅크에서 같은 모양이다."])),
        (s09 + "passes.svg", lambda: passes_figure(
            "stage09-passes", "임의 길이: 항등원으로 채우고, 블록 합을 다시 입력으로",
            "n = 11, 블록 크기 4. 패스마다 같은 커널을 런치하고, 앞 패스의 블록 수가 다음 패스의 n이 된다",
            [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], 4,
            caption=["i ≥ n인 스레드는 in[i]를 읽지 않고 0을 쓴다. 그래서 sdata가 늘 가득 차고 stage 08의 접기를 그대로 쓴다.",
                     "패스 2가 읽는 n은 11이 아니라 3이다. 두 패스는 서로 다른 버퍼에 쓴다."])),
        (s15 + "tree_max.svg", lambda: tree_figure(
            "stage15-tree-max", "최댓값: 같은 트리, 결합 연산 max와 항등원 -inf",
            "블록 8, 원소 6개. 넘어선 두 칸은 -inf로 채우고 순차 주소 지정으로 접는다",
            [-3, -7, -1, -5, -2, -9, float("-inf"), float("-inf")], sequential(8),
            op=max, written="sdata[tid] = max(sdata[tid], sdata[tid + stride])",
            identity_slots=(6, 7),
            caption=["점무늬 칸은 범위 밖 스레드가 항등원 -inf로 채운 자리다. 모든 값이 음수여도 답은 -1이다.",
                     "0으로 채웠다면 stride 4에서 max(-1, 0) = 0이 이겨, 입력에 없는 값 0이 답이 된다."])),
    ]
