"""Several GPUs (stage 18): how the input is cut into shards, and how the ring all-reduce moves
chunks between GPUs in its reduce-scatter and all-gather halves."""
from .draw import (BLUE, GREY, VERMILLION, WHITE, Figure, swatch, warp_cell, warp_colour,
                   warp_swatch)


def shard_of(n, gpus, g):
    """answers/stage18_multi_gpu/todo.cu, TODO 1: per_gpu = ceil(n / gpus);
    begin = min(n, per_gpu * g); count = min(per_gpu, n - begin)."""
    per_gpu = (n + gpus - 1) // gpus
    begin = min(n, per_gpu * g)
    return begin, min(per_gpu, n - begin)


def shards_figure():
    cases = [(16, 2), (10, 4), (2, 4)]
    cw, ch = 40, 30
    left, top = 120, 92
    width = left + 16 * cw + 40
    height = top + len(cases) * 96 + 70
    fig = Figure("stage18-shards", width, height, "샤드: 입력을 GPU 수만큼 이어진 조각으로",
                 "빈틈도 겹침도 없이, 어느 샤드도 ceil(n / k)개를 넘지 않게. 남는 GPU의 샤드는 비어 있어도 됩니다")
    y = top
    for n, k in cases:
        fig.text(f"n = {n}, k = {k}", 16, y + ch / 2 + 4, size=12, weight="bold")
        shards = [shard_of(n, k, g) for g in range(k)]
        assert sum(c for _, c in shards) == n
        for g, (begin, count) in enumerate(shards):
            for i in range(begin, begin + count):
                warp_cell(fig, g, left + i * cw, y, cw - 2, ch, str(i), size=11)
        labels = []
        for g, (begin, count) in enumerate(shards):
            if count:
                x = left + begin * cw
                fig.line(x, y + ch + 6, x + count * cw - 2, y + ch + 6, colour=warp_colour(g),
                         width=3)
                fig.text(f"GPU {g}", x + count * cw / 2, y + ch + 22, size=11, anchor="middle")
                fig.text(f"{count}개", x + count * cw / 2, y + ch + 37, size=11, anchor="middle",
                         fill=GREY)
            else:
                labels.append(f"GPU {g}: 시작 {begin}, 0개 (빈 샤드, 합은 항등원 0)")
        if labels:
            fig.text(" · ".join(labels), left + n * cw + 12, y + ch / 2 + 4, size=11, fill=GREY)
        y += 96
    fig.legend([(warp_swatch(g), f"GPU {g}의 샤드") for g in range(4)], 16, y, size=12)
    fig.text("칸의 수 = 원소의 인덱스. 샤드는 0에서 시작해 빈틈없이 이어지고 n에서 끝난다. 빈 샤드의 GPU도 올리듀스에 참여한다.",
             16, y + 26, size=12, fill=GREY)
    return fig


def ring_allreduce(k):
    """The ring all-reduce of stages/stage18_multi_gpu/README.md (「NCCL이 안에서 하는 일」): GPUs
    in a ring 0 → 1 → … → k−1 → 0, the vector in k chunks. At step t = 1 .. 2(k − 1), GPU g
    receives chunk (g − t) mod k from GPU g − 1: in the first k − 1 steps (reduce-scatter) it
    adds it to its own, in the last k − 1 (all-gather) it keeps the finished chunk.
    Returns the states: state[g][c] = the set of GPUs whose part of chunk c GPU g holds."""
    state = [[{g} for _ in range(k)] for g in range(k)]
    states, moves = [[[set(s) for s in row] for row in state]], [[]]
    for t in range(1, 2 * (k - 1) + 1):
        sent = [[set(s) for s in row] for row in state]
        step_moves = []
        for g in range(k):
            src, c = (g - 1) % k, (g - t) % k
            if t <= k - 1:
                state[g][c] = state[g][c] | sent[src][c]
            else:
                state[g][c] = set(sent[src][c])
            step_moves.append((src, g, c))
        states.append([[set(s) for s in row] for row in state])
        moves.append(step_moves)
    return states, moves


def chunk_label(chunk, holders, k):
    """a0 for one GPU's part, A' for several, A for all k (the lesson's notation)."""
    letter = "abcdefgh"[chunk]
    if len(holders) == 1:
        return f"{letter}{next(iter(holders))}"
    return letter.upper() if len(holders) == k else letter.upper() + "′"


def ring_figure():
    k = 3
    states, moves = ring_allreduce(k)
    assert all(len(states[-1][g][c]) == k for g in range(k) for c in range(k))
    cw, ch, gpu_gap = 46, 30, 40
    left, top, row_gap = 150, 110, 26
    gpu_w = k * cw
    width = left + k * (gpu_w + gpu_gap) + 210
    height = top + len(states) * (ch + row_gap) + 90
    fig = Figure("stage18-ring", width, height, "링 올리듀스: GPU 3개, 벡터를 세 조각 a, b, c로",
                 "단계 t마다 GPU g가 GPU g − 1에게서 조각 (g − t) mod 3을 받는다. 리듀스 스캐터(RS)는 더하고, 올개더(AG)는 받은 완성 조각을 둔다")
    for g in range(k):
        x0 = left + g * (gpu_w + gpu_gap)
        fig.text(f"GPU {g}", x0 + gpu_w / 2, top - 14, size=13, anchor="middle", weight="bold")
    names = ["처음"] + [f"RS {t} 뒤" for t in range(1, k)] + [f"AG {t} 뒤" for t in range(1, k)]
    for s_i, state in enumerate(states):
        y = top + s_i * (ch + row_gap)
        fig.text(names[s_i], left - 12, y + ch / 2 + 4, size=12, anchor="end")
        received = {(g, c) for _, g, c in moves[s_i]}
        for g in range(k):
            x0 = left + g * (gpu_w + gpu_gap)
            for c in range(k):
                holders = state[g][c]
                x = x0 + c * cw
                label = chunk_label(c, holders, k)
                if len(holders) == k:
                    fig.cell(x, y, cw - 3, ch, label, fill=BLUE, text_fill=WHITE, size=13,
                             weight="bold", mono=False)
                elif len(holders) > 1:
                    fig.cell(x, y, cw - 3, ch, label, fill="#CFE3F1", stroke=BLUE, size=13,
                             weight="bold", hatch=fig.hatch(BLUE, "diagonal", 6, 0.8),
                             mono=False)
                else:
                    fig.cell(x, y, cw - 3, ch, label, fill=WHITE, stroke=GREY, size=12,
                             mono=False)
                if (g, c) in received:
                    fig.rect(x - 2, y - 2, cw + 1, ch + 4, fill="none", stroke=VERMILLION,
                             stroke_width=2)
        if s_i:
            text = ", ".join(f"{src}→{dst}: {'abc'[c]}" for src, dst, c in moves[s_i])
            fig.text(text, left + k * (gpu_w + gpu_gap) - gpu_gap + 16, y + ch / 2 + 4,
                     size=11, mono=True, fill=GREY)
    y = top + len(states) * (ch + row_gap) + 8
    fig.footer([
        (swatch(stroke=GREY), "GPU 하나의 몫 (a0)"),
        (swatch(fill="#CFE3F1", stroke=BLUE, hatch_colour=BLUE), "둘의 합 (A′)"),
        (swatch(fill=BLUE), "세 GPU의 합 (A)"),
        (swatch(fill=WHITE, stroke=VERMILLION), "이번 단계에 받은 조각"),
    ], ["단계마다 GPU 하나가 S/3을 보내고 S/3을 받는다. 2(k − 1) = 4단계이므로 GPU마다 2(k − 1)/k × S를 보내고 같은 양을 받는다.",
               "리듀스 스캐터 뒤에는 GPU마다 한 조각의 전체 합이 있고(GPU 0의 B, GPU 1의 C, GPU 2의 A), 올개더가 그것을 모두에게 돌린다."], y)
    return fig


def figures():
    s18 = "stages/stage18_multi_gpu/figures/"
    return [
        (s18 + "shards.svg", shards_figure),
        (s18 + "ring.svg", ring_figure),
    ]
