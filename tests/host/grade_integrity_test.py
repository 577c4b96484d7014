#!/usr/bin/env python3
"""Host tests of the grader's integrity rules (scripts/course/grade/integrity.py) on the
course's own templates, answers and corpus, and on submissions made from them; the stages
and what each one's rules allow come from the registry (build/stages.json)."""
import pathlib
import sys
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course.grade import build, integrity, synthetic  # noqa: E402
from course.todo_markers import code_by_block  # noqa: E402

REGISTRY = build.course_registry()


def rules_broken(number, text):
    return [v.rule for v in integrity.check(synthetic.template(number), text,
                                            REGISTRY.stage(number))]


class Answers(unittest.TestCase):
    def test_every_answer_and_template_passes_its_own_stage(self):
        for number in REGISTRY.numbers():
            self.assertEqual(rules_broken(number, synthetic.answer(number)), [], number)
            self.assertEqual(rules_broken(number, synthetic.template(number)), [], number)

    def test_each_exception_is_one_an_answer_needs(self):
        """The allow-list is derived from the answers: a rule allowed in some stages only
        is allowed there because an answer of such a stage uses it."""
        for rule in integrity.RULES:
            if not rule.allowed_in:
                continue
            users = []
            for number in REGISTRY.numbers():
                facts = integrity.facts_of(REGISTRY.stage(number))
                code = "\n".join(integrity.code_part(line) for lines in
                                 code_by_block(synthetic.answer(number)).values() for line in lines)
                if facts & set(rule.allowed_in) and rule.pattern.search(code):
                    users.append(number)
            self.assertTrue(users, f"no answer uses what rule {rule.name} allows")

    def test_stage_facts_are_the_manifests_allows(self):
        self.assertEqual(integrity.facts_of(REGISTRY.stage(19)), {integrity.LIBRARY})
        self.assertEqual(integrity.facts_of(REGISTRY.stage(20)), {integrity.HOST_CODE})
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
        text = synthetic.in_block(synthetic.answer(7), 1, "  float s = thrust::reduce(a, b);")
        template = synthetic.template(7)
        self.assertIn("library", [v.rule for v in integrity.check(template, text, [])])
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
        for line, rule in (('  FILE* f = fopen(0, 0);', "files"), ("  int s = socket(2, 1, 0);", "network"),
                           ("  char* e = getenv(0);", "environment"), ("#include <cstdio>", "preprocessor"),
                           ("#define N 4", "preprocessor"), ('  asm volatile("trap;");', "asm"),
                           ("  system(0);", "process"), ("  }  void later() {", "balance"),
                           ("  /* hide", "comment"), ("  extern int x;", "declaration")):
            self.assertIn(rule, self.broken_by(line), line)

    def test_a_function_used_without_a_call_is_still_found(self):
        for line in ("  auto f = &system;", "  auto f = system;", "  (getenv)(0);", "  g(0, fopen);",
                     "  auto f = &read;"):
            self.assertTrue(self.broken_by(line), line)

    def test_variables_named_like_calls_are_fine(self):
        self.assertEqual(self.broken_by("  const float read = in[0], write = read + 1.0f;"), [])
        self.assertEqual(self.broken_by("  float open = 0.0f; open += max(read, write);"), [])

    def test_pragma_unroll_is_the_one_preprocessor_line(self):
        self.assertEqual(self.broken_by("#pragma unroll"), [])
        self.assertEqual(self.broken_by("#pragma unroll 4"), [])
        self.assertIn("preprocessor", self.broken_by("#pragma once"))

    def test_library_calls_only_in_the_library_stage(self):
        self.assertIn("library", self.broken_by("  float s = cub::WarpReduce<float>(t).Sum(v);"))
        self.assertIn("library", self.broken_by("  float s = thrust::reduce(a, b);"))
        self.assertIn("library", self.broken_by("  float s = cg::reduce(tile, v, cg::plus<float>());"))
        self.assertEqual(self.broken_by("  float s = 0.0f;  // cub:: in a comment is fine"), [])
        self.assertNotIn("library", self.broken_by("  float s = thrust::reduce(a, b);", number=19))

    def test_memory_calls_only_in_the_host_code_and_many_gpu_stages(self):
        self.assertIn("memory", self.broken_by("  cudaMalloc(&p, 4);"))
        self.assertIn("memory", self.broken_by("  cudaStreamSynchronize(0);", number=14, block=2))
        self.assertNotIn("memory", self.broken_by("  cudaMalloc(&p, 4);", number=20))
        self.assertNotIn("memory", self.broken_by("  cudaSetDevice(0);", number=18))
        self.assertIn("nccl", self.broken_by("  ncclGroupStart();", number=20))

    def test_every_violation_names_line_and_rule(self):
        found = integrity.check(synthetic.template(7),
                                synthetic.in_block(self.answer, 2, "  int fd = open(0);"),
                                REGISTRY.stage(7))
        self.assertEqual(len(found), 1)
        line = self.answer.split("\n").index(next(l for l in self.answer.split("\n") if "TODO 2 of 3: BEGIN" in l)) + 2
        self.assertEqual((found[0].line, found[0].rule), (line, "files"))
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
