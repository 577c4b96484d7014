"""The benchmark's two references and the capstone-against-CUB pairs: what holds on any
machine. Pure functions of the measured rows (no GPU), so the host tests feed them fixtures.

- The physical limit at n: an empty launch plus 4n bytes at the memory's theoretical
  bandwidth, 2 x memory clock x bus width / 8 (bench_memory; 3.35 TB/s on an H100 SXM). No
  kernel can beat it. A kernel that also writes (softmax, layer norm, a copy) moves the bytes
  it reads plus those it writes (limit_ms); the L2 can hold back some of those writes past
  the timed run, so a copy can come close to or under that limit.
- The best measured read at n: the fastest of bench_read's kernels at that n. If a reduction
  (CUB, a stage) was faster than every read, the reduction's time is the best read there
  and the page says so: a floor that a reduction beats is not a floor.
- Stage 14 against CUB: alternated process pairs at every n (stage 14 then CUB, then CUB
  then stage 14, ...), each process the median of its own timed runs from a clean L2; the
  ratio per pair, its median and its range. "At or below CUB" only where the whole range
  is at or below 1, "slower" where all of it is above, a tie otherwise.
"""
import statistics

CAPSTONE = "Stage 14"
CUB = "CUB"
LAUNCH = "launch"
READ_PREFIX = "read"
# bench_read's kernels besides its default (the last): rows "read v1", "read v2". The best
# read is the fastest of all three, for the sums and for the max alike.
READ_VERSIONS = (1, 2)

AT_OR_BELOW = "at or below CUB"
TIE = "tie"
SLOWER = "slower than CUB"


def peak_gbps(memory_clock_khz, bus_width_bits):
    """Theoretical bandwidth in GB/s: two transfers per clock (DDR; HBM is double data rate
    too) x clock x bus width in bytes. An H100 SXM: 2619000 kHz, 5120 bits -> 3352.3."""
    return 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9


def is_read(name):
    return name == READ_PREFIX or name.startswith(READ_PREFIX + " ")


def is_reduction(name):
    """A stage's rows or CUB's, its sum ('CUB') or another of its reductions ('CUB max')."""
    return name == CUB or name.startswith(CUB + " ") or name.startswith("Stage ")


def launch_ms(rows):
    """The empty launch: the median of bench_launch over all sizes; None without it."""
    launches = [r["gpu_ms"] for r in rows if r["name"] == LAUNCH]
    return statistics.median(launches) if launches else None


def limit_ms(launch, peak, moved_bytes):
    """The physical limit of a kernel that must move `moved_bytes` (read plus written): the
    empty launch plus those bytes at the theoretical bandwidth `peak` (GB/s); None without
    either."""
    if launch is None or not peak:
        return None
    return launch + moved_bytes / (peak * 1e6)


def references(rows, memory):
    """{n: {'limit_ms', 'best_read_ms', 'best_read_name', 'read_beaten_by'}} for every n with
    a read. limit_ms is None without bench_memory's numbers or the launch; read_beaten_by
    names the reduction that was faster than every read kernel at n (None when none was)."""
    launch = launch_ms(rows)
    peak = memory["peak_gbps"] if memory else None
    found = {}
    for n in sorted({r["n"] for r in rows}):
        at_n = [r for r in rows if r["n"] == n]
        reads = [r for r in at_n if is_read(r["name"])]
        if not reads:
            continue
        best = min(reads, key=lambda r: r["gpu_ms"])
        faster = [r for r in at_n if is_reduction(r["name"]) and r["gpu_ms"] < best["gpu_ms"]]
        beaten_by = min(faster, key=lambda r: r["gpu_ms"]) if faster else None
        floor = beaten_by or best
        found[n] = {
            "limit_ms": limit_ms(launch, peak, 4 * n),
            "best_read_ms": floor["gpu_ms"],
            "best_read_name": floor["name"],
            "read_ms": best["gpu_ms"],
            "read_beaten_by": beaten_by["name"] if beaten_by else None,
        }
    return found


def derive(rows, refs):
    """Adds to every row (but the launch's) its references and the multiples of them:
    floor_ms and x_floor (the best measured read), limit_ms and x_limit (the physical
    limit), and x_cub (CUB's time at the same n in the same sweep)."""
    cub = {r["n"]: r["gpu_ms"] for r in rows if r["name"] == CUB}
    for r in rows:
        ref = refs.get(r["n"])
        timed = ref is not None and r["name"] != LAUNCH
        r["floor_ms"] = ref["best_read_ms"] if ref else None
        r["limit_ms"] = ref["limit_ms"] if ref else None
        r["x_floor"] = r["gpu_ms"] / r["floor_ms"] if timed else None
        r["x_limit"] = r["gpu_ms"] / r["limit_ms"] if timed and r["limit_ms"] else None
        r["x_cub"] = r["gpu_ms"] / cub[r["n"]] if r["name"] != LAUNCH and r["n"] in cub else None


def pair_order(index):
    """Which runs first in pair `index`: stage 14 in even pairs, CUB in odd ones, so that a
    drift over the run (clocks, temperature) does not favour either."""
    return (CAPSTONE, CUB) if index % 2 == 0 else (CUB, CAPSTONE)


def verdict(low, high):
    if high <= 1.0:
        return AT_OR_BELOW
    if low > 1.0:
        return SLOWER
    return TIE


def pair_summary(pairs):
    """[{n, pairs, median, low, high, verdict}] per n, from [{n, capstone_ms, cub_ms}]."""
    summary = []
    for n in sorted({p["n"] for p in pairs}):
        ratios = [p["capstone_ms"] / p["cub_ms"] for p in pairs if p["n"] == n]
        low, high = min(ratios), max(ratios)
        summary.append({"n": n, "pairs": len(ratios), "median": statistics.median(ratios),
                        "low": low, "high": high, "verdict": verdict(low, high)})
    return summary


def power(n):
    return f"2^{n.bit_length() - 1}"


def size_ranges(sizes):
    """'2^10-2^12, 2^15' for the sorted powers of two given."""
    exponents = sorted(n.bit_length() - 1 for n in sizes)
    runs, start = [], None
    for i, e in enumerate(exponents):
        if start is None:
            start = e
        if i + 1 == len(exponents) or exponents[i + 1] != e + 1:
            runs.append(f"2^{start}" if start == e else f"2^{start}-2^{e}")
            start = None
    return ", ".join(runs)


def ratio_text(entry):
    return f"{entry['median']:.3f} [{entry['low']:.3f}, {entry['high']:.3f}]"


def by_verdict(summary):
    groups = {AT_OR_BELOW: [], TIE: [], SLOWER: []}
    for entry in summary:
        groups[entry["verdict"]].append(entry["n"])
    return groups


# The claim's words, in English (the README) and Korean (the capstone's lesson).
PHRASES = {
    "en": {
        "none": ("The saved run has no alternated pairs of stage 14 and CUB, so the README "
                 "claims nothing about which is faster; `scripts/bench.sh` measures them."),
        AT_OR_BELOW: "at or below CUB at {sizes} (every pair's ratio at most 1)",
        TIE: "a tie at {sizes} (the pairs' range spans 1)",
        SLOWER: "slower than CUB at {sizes} (every pair above 1)",
        "joiner": "; ",
        "head": ("Stage 14 against CUB, from {pairs} or more alternated process pairs per size "
                 "(stage 14 / CUB, median [min, max]): {parts}."),
        "main": " At n = {n}: {ratio}.",
    },
    "ko": {
        "none": ("저장된 실행에는 stage 14와 CUB를 번갈아 돌린 프로세스 쌍이 없어서, 어느 쪽이 빠른지는 말하지 "
                 "않습니다. `scripts/bench.sh`가 그 쌍을 잽니다."),
        AT_OR_BELOW: "{sizes}에서는 CUB와 같거나 빠르고(모든 쌍의 비가 1 이하)",
        TIE: "{sizes}에서는 비겼고(쌍들의 범위가 1을 걸침)",
        SLOWER: "{sizes}에서는 CUB보다 느립니다(모든 쌍이 1 초과)",
        "joiner": ", ",
        "head": ("크기마다 번갈아 돌린 프로세스 쌍 {pairs}개 이상(stage 14 ÷ CUB의 중앙값 [최소, 최대])으로 "
                 "보면, stage 14는 {parts}."),
        "main": " n = {n}에서는 {ratio}입니다.",
    },
}


def claim(summary, main_n, language="en"):
    """The sentence on stage 14 against CUB, from the pairs alone: "at or below" only where
    the whole range is, "slower" where all of it is above 1, a tie elsewhere."""
    words = PHRASES[language]
    if not summary:
        return words["none"]
    groups = by_verdict(summary)
    parts = [words[v].format(sizes=size_ranges(groups[v])) for v in (AT_OR_BELOW, TIE, SLOWER)
             if groups[v]]
    text = words["head"].format(pairs=min(e["pairs"] for e in summary),
                                parts=words["joiner"].join(parts))
    main = [e for e in summary if e["n"] == main_n]
    if main:
        text += words["main"].format(n=power(main_n), ratio=ratio_text(main[0]))
    return text


def claim_ko(summary, main_n):
    return claim(summary, main_n, "ko")


def beaten_lines(refs):
    """One line per n where a reduction was faster than every read kernel."""
    return [f"- At n = {power(n)}, {ref['read_beaten_by']} ({ref['best_read_ms'] * 1000:.1f} us) "
            f"was faster than every read kernel (best {ref['read_ms'] * 1000:.1f} us): the "
            f"best read there is {ref['read_beaten_by']}'s time."
            for n, ref in sorted(refs.items()) if ref["read_beaten_by"]]
