"""Inside one warp (stages 11 and 12): the last warp's six steps without block barriers, and
the shuffle's steps from register to register, drawn from the answers' loops."""
from .draw import (BLUE, GREY, INK, LIGHT, PALE, VERMILLION, WHITE, Figure, fmt, idle_cell,
                   span, swatch, warp_cell, warp_swatch)
from .shared_memory import WARP, sequential

# ---------------------------------------------------------------------------- stage 11


def last_warp_offsets(block):
    """answers/stage11_unroll_last_warp/todo.cu, the first warp's steps:
    if (blockDim.x >= 64) warp_step(.., 32); then warp_step(.., 16) .. warp_step(.., 1),
    where warp_step adds sdata[tid + offset] when tid < offset."""
    return ([32] if block >= 2 * WARP else []) + [16, 8, 4, 2, 1]


def barrier_panel(fig, x0, y0, heading, block, block_steps, warp_offsets, cw=60, ch=22):
    """Rows of steps, a column per warp: whether the warp works, waits at a block barrier, or
    has finished, and which barrier ends the step."""
    warps = block // WARP
    fig.text(heading, x0, y0, size=13, weight="bold")
    y = y0 + 26
    for w in range(warps):
        fig.text(f"워프 {w}", x0 + 96 + w * cw + (cw - 2) / 2, y, size=11, anchor="middle",
                 fill=GREY)
    y += 8
    rows = []
    for stride, work in block_steps:
        busy = {t // WARP for t, _, _ in work}
        full = {w for w in busy if sum(1 for t, _, _ in work if t // WARP == w) == WARP}
        rows.append((f"stride {stride}", busy, full, "block"))
    for offset in warp_offsets:
        rows.append((f"offset {offset}", {0}, {0} if offset >= WARP else set(), "warp"))
    for label, busy, full, barrier in rows:
        fig.text(label, x0 + 88, y + 15, size=11, anchor="end", mono=True)
        for w in range(warps):
            x = x0 + 96 + w * cw
            if w in busy:
                if w in full:
                    warp_cell(fig, 0, x, y, cw - 2, ch, "전부", size=11)
                else:
                    fig.cell(x, y, cw - 2, ch, "일부", fill=WHITE, stroke=BLUE, stroke_width=2,
                             hatch=fig.hatch("#9CC3E0", "diagonal", 5, 1.5), size=11,
                             weight="bold", mono=False)
            elif barrier == "block":
                fig.cell(x, y, cw - 2, ch, "대기", fill=LIGHT, stroke=GREY, text_fill=INK,
                         hatch=fig.hatch(GREY, "dots", 5, 0.7), size=11, mono=False)
            else:
                fig.cell(x, y, cw - 2, ch, "끝남", fill=WHITE, stroke=GREY, text_fill=GREY,
                         dash="3 2", size=11, mono=False)
        bx = x0 + 96 + warps * cw + 6
        if barrier == "block":
            fig.text("__syncthreads()", bx, y + 15, size=11, mono=True)
        else:
            fig.text("__syncwarp() ×2", bx, y + 15, size=11, mono=True, fill=BLUE)
        y += ch + 4
    return y


def barriers_figure():
    block = 256
    fig = Figure("stage11-barriers", 860, 680, "한 워프의 일에 블록 전체가 따라 움직이는가: 블록 256",
                 "칸 하나가 한 단계의 워프 하나. stage 10은 여덟 단계 모두 블록 배리어, stage 11은 두 단계만")
    y = barrier_panel(fig, 16, 80, "stage 10: 블록 루프 여덟 단계", block, sequential(block), [])
    y = barrier_panel(fig, 16, y + 30, "stage 11: 블록 루프 두 단계 + 마지막 워프 여섯 단계", block,
                      sequential(block, last=WARP), last_warp_offsets(block))
    y += 24
    fig.footer([
        (warp_swatch(0), "레인 32개 모두 일함"),
        (swatch(stroke=BLUE, hatch_colour="#9CC3E0"), "레인 일부만 일함"),
        (swatch(fill=LIGHT, stroke=GREY, hatch_colour=GREY, kind="dots"), "일 없이 블록 배리어에서 기다림"),
        (swatch(stroke=GREY, dash="3 2"), "이미 끝난 워프"),
    ], ["stage 10에서 stride 32 이하의 여섯 단계는 워프 0만 일하는데도 여덟 워프가 모두 __syncthreads()를 치른다.",
               "stage 11은 stride 64까지만 블록 루프로 접고(sdata[0..63]에 64개 값), 워프 0이 offset 32–1을 워프 배리어만으로 접는다."], y)
    return fig


def last_warp_figure():
    """Warp 0's six steps over sdata[0..63]: lanes that add, slots they read, and the write
    every lane makes after the first __syncwarp()."""
    slots, pitch, cw, ch, row_gap = 64, 10, 9, 22, 10
    left, top = 112, 112
    offsets = last_warp_offsets(2 * WARP)
    width = left + slots * pitch + 230
    height = top + len(offsets) * (ch + row_gap) + 76
    fig = Figure("stage11-last-warp", width, height, "마지막 워프의 여섯 단계: sdata[0..63]을 워프 0이 접는다",
                 "칸 하나가 sdata 한 칸(= 같은 번호의 스레드). 워프 0의 레인 0–31만 남아 있다")
    fig.line(left, top - 30, left + WARP * pitch - 1, top - 30, colour=BLUE, width=3)
    fig.text("워프 0의 레인이 쓰는 칸 0–31", left + WARP * pitch / 2, top - 38, size=12,
             anchor="middle", weight="bold")
    fig.line(left + WARP * pitch, top - 30, left + slots * pitch - 1, top - 30, colour=GREY,
             width=3, dash="4 3")
    fig.text("칸 32–63: 블록 루프가 남긴 값 (워프 1은 이미 끝남)", left + 1.5 * WARP * pitch, top - 38,
             size=12, anchor="middle", fill=GREY)
    for s in range(0, slots, 8):
        fig.text(str(s), left + s * pitch + cw / 2, top - 12, size=10, anchor="middle",
                 mono=True, fill=GREY)
    for i, offset in enumerate(offsets):
        y = top + i * (ch + row_gap)
        fig.text(f"offset = {offset}", left - 12, y + 15, size=12, anchor="end", mono=True)
        for s in range(slots):
            x = left + s * pitch
            if s < offset:          # tid < offset: sum += sdata[tid + offset], then writes
                warp_cell(fig, 0, x, y, cw, ch)
            elif s < 2 * offset:    # read by lane s - offset before the first __syncwarp()
                fig.rect(x, y, cw, ch, fill="#F9DCC9", stroke=VERMILLION, stroke_width=1.5,
                         hatch=fig.hatch(VERMILLION, "dots", 4, 0.8))
            elif s < WARP:          # a lane that only writes its own sum back
                fig.rect(x, y, cw, ch, fill=WHITE, stroke=BLUE, dash="2 2")
            else:
                idle_cell(fig, x, y, cw, ch)
        fig.text(f"레인 {span(0, offset - 1)}이 더함", left + slots * pitch + 12, y + 15, size=12)
    y = top + len(offsets) * (ch + row_gap) + 20
    fig.footer([
        (warp_swatch(0), "sum += sdata[tid + offset] 하는 레인"),
        (swatch(fill="#F9DCC9", stroke=VERMILLION, hatch_colour=VERMILLION, kind="dots"), "그 레인들이 읽는 칸"),
        (swatch(stroke=BLUE, dash="2 2"), "더하지 않고 자기 sum만 다시 쓰는 레인"),
    ], ["단계마다: 읽기 → __syncwarp() → 모든 레인이 sdata[tid] = sum → __syncwarp(). 읽는 칸(offset..2·offset−1)이",
               "같은 단계에 쓰이기 전에 읽기가 모두 끝나야 하므로 읽기와 쓰기 사이에 워프 배리어가 있다."], y)
    return fig


# ---------------------------------------------------------------------------- stage 12


def shuffle_down_steps(values):
    """answers/stage12_warp_shuffle/todo.cu, warp_reduce_sum:
    for (offset = 32 / 2; offset > 0; offset >>= 1) value += __shfl_down_sync(mask, value, offset);
    here on a warp of len(values) lanes (the width argument): lane i receives lane i + offset's
    value, or its own when i + offset is past the last lane. Returns [(offset, received,
    values after)]."""
    lanes, rows, value = len(values), [], list(values)
    offset = lanes // 2
    while offset > 0:
        received = [value[i + offset] if i + offset < lanes else value[i] for i in range(lanes)]
        value = [v + g for v, g in zip(value, received)]
        rows.append((offset, received, list(value)))
        offset >>= 1
    return rows


def shuffle_figure():
    values = [3, 1, 4, 1, 5, 9, 2, 6]
    lanes = len(values)
    steps = shuffle_down_steps(values)
    cw, ch, gap_x, row_gap = 52, 28, 8, 56
    left, top = 150, 96
    right_x = left + lanes * (cw + gap_x) + 10
    width = right_x + 240
    height = top + (len(steps) + 1) * (ch + row_gap) + 60
    fig = Figure("stage12-shuffle", width, height,
                 "__shfl_down_sync: 레인 8개짜리 워프로 본 세 단계",
                 "레인 i가 레인 i + offset의 value를 받아 더한다. 값은 레지스터에서 레지스터로, 공유 메모리를 거치지 않는다")
    fig.text("레인", left - 12, top - 12, size=12, anchor="end")
    for lane in range(lanes):
        fig.text(str(lane), left + lane * (cw + gap_x) + cw / 2, top - 12, size=12,
                 anchor="middle", mono=True)
    fig.text("value", left - 12, top + ch / 2 + 4, size=12, anchor="end", mono=True)
    for lane, v in enumerate(values):
        warp_cell(fig, 0, left + lane * (cw + gap_x), top, cw, ch, fmt(v), size=13)
    prev = top
    for s_i, (offset, received, after) in enumerate(steps):
        y = top + (s_i + 1) * (ch + row_gap)
        fig.text(f"offset = {offset}", left - 12, y + ch / 2 + 4, size=12, anchor="end",
                 mono=True)
        for lane in range(lanes):
            x = left + lane * (cw + gap_x)
            cx = x + cw / 2
            if lane + offset < lanes:
                sx = left + (lane + offset) * (cw + gap_x) + cw / 2
                fig.line(sx, prev + ch + 2, cx + 3, y - 4, colour=VERMILLION, width=1.4,
                         arrow=True)
            else:
                fig.line(cx, prev + ch + 2, cx, y - 4, colour=GREY, width=1.2, dash="3 3",
                         arrow=True)
            if lane < offset:       # lanes 0..offset-1 carry what the next step needs
                warp_cell(fig, 0, x, y, cw, ch, fmt(after[lane]), size=13)
            else:
                idle_cell(fig, x, y, cw, ch, fmt(after[lane]), size=12)
        out = [str(l) for l in range(lanes) if l + offset >= lanes]
        fig.text(f"레인 {span(0, offset - 1)}의 값만 다음 단계에 쓰임", right_x, y + 10, size=12)
        fig.text(f"레인 {span(out[0], out[-1])}: 범위 밖, 자기 값을 받음", right_x, y + 28, size=12,
                 fill=GREY)
        prev = y
    y = top + (len(steps) + 1) * (ch + row_gap) + 4
    x = fig.legend([(warp_swatch(0), "의미 있는 값"), (swatch(stroke=GREY), "쓰이지 않는 값")], 16, y)
    fig.line(x, y - 5, x + 30, y - 5, colour=VERMILLION, width=1.4, arrow=True)
    fig.text("레인 i + offset의 값을 받음", x + 46, y, size=12)
    fig.line(x + 230, y - 5, x + 260, y - 5, colour=GREY, width=1.2, dash="3 3", arrow=True)
    fig.text("자기 값을 받음", x + 276, y, size=12)
    fig.text(f"레인 0: {fmt(steps[-1][2][0])} = " + "+".join(fmt(v) for v in values), 16, y + 26,
             size=12, fill=GREY)
    return fig


def block_shuffle_figure():
    """answers/stage12_warp_shuffle/todo.cu: each warp's sum to warp_sums[warp] (warp = tid / 32,
    lane 0 stores), one __syncthreads(), then warp 0 folds lane < blockDim.x / 32 ? warp_sums[lane]
    : 0 with the same shuffle."""
    warps = 8
    bw, gap = 96, 8
    left, top = 16, 86
    width = left + warps * (bw + gap) + 16
    fig = Figure("stage12-block", width, 360, "블록 256: 워프 합 8개를 워프 0이 한 번 더 접는다",
                 "블록 배리어는 warp_sums를 쓴 뒤 한 번뿐이다")
    for w in range(warps):
        x = left + w * (bw + gap)
        fig.cell(x, top, bw, 34, f"워프 {w}", fill=LIGHT, stroke=GREY, size=12, mono=False)
        fig.text("셔플 5단계", x + bw / 2, top + 50, size=10, anchor="middle", fill=GREY)
        fig.line(x + bw / 2, top + 56, x + bw / 2, top + 92, colour=INK, arrow=True)
        warp_cell(fig, 0, x + bw / 2 - 22, top + 96, 44, 26, f"s{w}", size=12)
    fig.text("warp_sums[0..7] (공유 메모리, 레인 0이 씀)", left, top + 142, size=12, mono=False)
    fig.line(left, top + 152, width - 16, top + 152, colour=INK, width=2, dash="6 3")
    fig.text("__syncthreads()", width - 16, top + 168, size=12, anchor="end", mono=True)
    y = top + 186
    lane_w = (width - 32) / 32
    for lane in range(32):
        x = left + lane * lane_w
        if lane < warps:
            warp_cell(fig, 0, x, y, lane_w - 2, 26, f"s{lane}", size=9)
        else:
            fig.cell(x, y, lane_w - 2, 26, "0", fill=PALE, stroke=GREY,
                     hatch=fig.hatch(GREY, "dots", 5, 0.8), size=10, weight="bold")
    fig.text("워프 0의 레인 0–31: 레인 < 256/32 = 8이면 warp_sums[lane], 아니면 항등원 0", left,
             y + 46, size=12)
    fig.text("→ 셔플 5단계 → 레인 0(스레드 0)에 블록 합 → block_sums[blockIdx.x]", left, y + 68,
             size=12)
    return fig


def figures():
    s11 = "stages/stage11_unroll_last_warp/figures/"
    s12 = "stages/stage12_warp_shuffle/figures/"
    return [
        (s11 + "barriers_256.svg", barriers_figure),
        (s11 + "last_warp.svg", last_warp_figure),
        (s12 + "shuffle_8.svg", shuffle_figure),
        (s12 + "block_256.svg", block_shuffle_figure),
    ]
