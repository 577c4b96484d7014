#!/usr/bin/env python3
"""Host tests of the grader's integrity rules (scripts/course/grade/integrity.py) on the
course's own templates, answers and corpus, and on submissions made from them; the stages
and what each one's rules allow come from the registry (build/stages.json)."""
import pathlib
import sys
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course.grade import build, integrity, lexer, synthetic  # noqa: E402
from course.todo_markers import code_by_block  # noqa: E402

lexer.skip_unless_available()

REGISTRY = build.course_registry()


def rules_broken(number, text):
    return [v.rule for v in integrity.check(synthetic.template(number), text,
                                            REGISTRY.stage(number))]


class Answers(unittest.TestCase):
    def test_every_answer_and_template_passes_its_own_stage(self):
        for number in REGISTRY.numbers():
            self.assertEqual(rules_broken(number, synthetic.answer(number)), [], number)
            self.assertEqual(rules_broken(number, synthetic.template(number)), [], number)

    def test_each_facts_vocabulary_is_one_an_answer_needs(self):
        """The allow-list is derived from the answers: each fact's section of vocabulary.txt
        holds names that an answer of a stage with that fact uses."""
        sections = integrity.read_vocabulary()
        for fact in integrity.FACTS:
            users = [n for n in REGISTRY.numbers()
                     if fact in integrity.facts_of(REGISTRY.stage(n))
                     and integrity.file_names(synthetic.answer(n), inside=True) & sections[fact]["names"]]
            self.assertTrue(users, f"no answer uses a name of vocabulary.txt's [{fact}]")

    def test_no_answer_needs_a_never_name(self):
        never = integrity.read_vocabulary()[integrity.EVERYWHERE]["never"]
        for number in REGISTRY.numbers():
            self.assertFalse(integrity.file_names(synthetic.answer(number), inside=True) & never, number)

    def test_stage_facts_are_the_manifests_allows(self):
        self.assertEqual(integrity.facts_of(REGISTRY.stage(19)), {integrity.LIBRARY})
        self.assertEqual(integrity.facts_of(REGISTRY.stage(5)), {integrity.HOST_CODE})
        self.assertEqual(integrity.facts_of(REGISTRY.stage(18)), {integrity.MULTI_GPU})
        self.assertEqual(integrity.facts_of(REGISTRY.stage(7)), set())
        self.assertEqual(integrity.facts_of(["library", "host_code"]),
                         {integrity.LIBRARY, integrity.HOST_CODE})
        for stage in REGISTRY.stages:  # every manifest names only facts the rules know
            self.assertLessEqual(integrity.facts_of(stage), set(integrity.FACTS), stage)

    def test_an_unknown_fact_is_an_error(self):
        with self.assertRaises(ValueError) as caught:
            integrity.facts_of(["libary"])
        self.assertIn("libary", str(caught.exception))

    def test_the_allows_decide_not_the_template(self):
        """The same line is allowed or not by the allows list alone."""
        text = synthetic.in_block(synthetic.answer(7), 1, "  float s = thrust::reduce(in, in + 1, 0.0f);")
        template = synthetic.template(7)
        self.assertIn("name", [v.rule for v in integrity.check(template, text, [])])
        self.assertEqual([v.rule for v in integrity.check(template, text, ["library"])], [])

    def test_corpus_entries_pass_unless_they_say_they_change_outside(self):
        for number in REGISTRY.numbers():
            for entry in synthetic.corpus(number):
                broken = rules_broken(number, entry.text)
                self.assertEqual(broken == ["outside"], entry.outside, (entry.slug, broken))


class Violations(unittest.TestCase):
    answer = synthetic.answer(7)

    def broken_by(self, line, number=7, block=1):
        return rules_broken(number, synthetic.in_block(synthetic.answer(number), block, line))

    def test_an_edit_outside_a_block_names_its_line(self):
        found = integrity.check(synthetic.template(7), synthetic.outside(self.answer),
                                REGISTRY.stage(7))
        self.assertEqual([(v.line, v.rule) for v in found], [(2, "outside")])

    def test_a_deleted_line_outside_is_found(self):
        text = self.answer.replace("__global__ void reduce_interleaved", "void reduce_interleaved")
        self.assertEqual(rules_broken(7, text), ["outside"])

    def test_line_endings_and_trailing_spaces_are_normalised(self):
        text = "\n".join(line + "  " for line in self.answer.split("\n")).replace("\n", "\r\n")
        self.assertEqual(rules_broken(7, text), [])

    def test_what_no_stage_allows(self):
        for line, rule in (('  FILE* f = fopen(0, 0);', "never"), ("  int s = socket(2, 1, 0);", "never"),
                           ("  char* e = getenv(0);", "never"), ("#include <cstdio>", "preprocessor"),
                           ("#define N 4", "preprocessor"), ('  asm volatile("trap;");', "keyword"),
                           ("  system(0);", "never"), ("  }  void later() {", "balance"),
                           ("  extern int x;", "keyword"), ("  static int calls = 0;", "keyword"),
                           ("  int q = rand();", "name"), ("  puts(0);", "name")):
            self.assertIn(rule, self.broken_by(line), line)

    def test_a_function_used_without_a_call_is_still_found(self):
        for line in ("  auto f = &system;", "  auto f = system;", "  (getenv)(0);", "  g(0, fopen);",
                     "  auto f = &rand;"):
            self.assertTrue(self.broken_by(line), line)

    def test_a_lone_carriage_return_cannot_shift_the_blocks(self):
        # "\r" alone ends a line for the compiler but not for a split on "\n": one before a
        # block would leave the block's last line looking like the template's.
        lines = self.answer.split("\n")
        end = next(i for i, l in enumerate(lines) if "TODO 1 of 3: END" in l)
        lines.insert(end, "  std::system(0);")
        text = "\n".join(lines)
        shifted = text.replace("\n", "\r", 1)
        self.assertIn("bytes", rules_broken(7, shifted))
        self.assertIn("never", rules_broken(7, text))

    def test_names_declared_in_the_block_are_free(self):
        self.assertEqual(self.broken_by("  const float read = in[0], write = read + 1.0f;"), [])
        self.assertEqual(self.broken_by("  float open2 = 0.0f; open2 += max(1.0f, 2.0f);"), [])
        # ... but only where they are in scope.
        self.assertIn("name", self.broken_by("  { float rand = 0.0f; } float r = rand();"))
        self.assertIn("name", self.broken_by("  for (int rand = 0; rand < 1; ++rand) {} rand();"))

    def test_pragma_unroll_is_the_one_preprocessor_line(self):
        self.assertEqual(self.broken_by("#pragma unroll"), [])
        self.assertEqual(self.broken_by("#pragma unroll 4"), [])
        self.assertIn("preprocessor", self.broken_by("#pragma once"))
        self.assertIn("preprocessor", self.broken_by("#pragma unroll 4 extra"))

    def test_library_calls_only_in_the_library_stage(self):
        self.assertIn("name", self.broken_by("  float s = cub::WarpReduce<float>(t).Sum(v);"))
        self.assertIn("name", self.broken_by("  float s = thrust::reduce(a, b);"))
        self.assertIn("name", self.broken_by("  float s = cg::reduce(tile, v, cg::plus<float>());"))
        self.assertEqual(self.broken_by("  float s = 0.0f;  // cub:: in a comment is fine"), [])
        self.assertEqual(self.broken_by("  float s = thrust::reduce(run.in, run.in + 1, 0.0f);",
                                        number=19, block=4), [])

    def test_memory_calls_only_in_the_host_code_and_many_gpu_stages(self):
        self.assertIn("name", self.broken_by("  cudaMalloc(&p, 4);"))
        self.assertIn("name", self.broken_by("  cudaStreamSynchronize(0);", number=14, block=2))
        self.assertEqual(self.broken_by("  float* p = nullptr; CUDA_CHECK(cudaMalloc(&p, 4));",
                                        number=5), [])
        self.assertEqual(self.broken_by("  CUDA_CHECK(cudaSetDevice(0));", number=18), [])
        self.assertIn("name", self.broken_by("  ncclGroupStart();", number=5))

    def test_every_violation_names_line_and_rule(self):
        found = integrity.check(synthetic.template(7),
                                synthetic.in_block(self.answer, 2, "  int fd = open(0);"),
                                REGISTRY.stage(7))
        self.assertEqual(len(found), 1)
        line = self.answer.split("\n").index(next(l for l in self.answer.split("\n") if "TODO 2 of 3: BEGIN" in l)) + 2
        self.assertEqual((found[0].line, found[0].rule), (line, "never"))
        self.assertIn("open(0)", str(found[0]))


class Flags(unittest.TestCase):
    def test_same_blocks_and_the_answer_are_flagged(self):
        answer = synthetic.answer(7)
        spaced = answer.replace("sdata[tid] += sdata[tid + stride];", "sdata[tid]  +=  sdata[tid + stride]; // mine")
        own = synthetic.corpus(7)[0].text
        prints = {"a": integrity.fingerprint(answer), "b": integrity.fingerprint(spaced),
                  "c": integrity.fingerprint(own), "d": integrity.fingerprint(synthetic.template(7))}
        flags = integrity.flags(prints, integrity.fingerprint(answer))
        self.assertEqual(sorted(flags), ["a", "b"])
        self.assertIn("same TODO blocks as b", flags["a"])
        self.assertIn("TODO blocks identical to the answer", flags["b"])
        self.assertIsNone(prints["d"])


if __name__ == "__main__":
    unittest.main()
