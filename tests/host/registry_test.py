#!/usr/bin/env python3
"""The stage registry (build/stages.json, cmake/stages.cmake, course.registry) against the
stages' own declarations: every stage folder is in it once, with the number its stage.json
gives; each built stage's executables describe themselves as the registry says (number,
folder, the kind its needs and allows imply), the template as its answer does; every target
it names is a file of the build. Needs the build (ctest runs it after one); no GPU."""
import json
import pathlib
import sys
import unittest

from course import registry

BUILD = pathlib.Path(sys.argv.pop(1)) if len(sys.argv) > 1 else registry.ROOT / "build"
# What a manifest's needs and allows say about the kind --describe reports.
KIND_FACTS = {"multi_gpu": {"needs": "nccl", "allows": "multi_gpu"},
              "host_code": {"allows": "host_code"}}


class Registry(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.registry = registry.load(BUILD)

    def test_every_stage_folder_is_in_it_once_with_its_manifests_number(self):
        folders = sorted(p.parent.name for p in (registry.ROOT / "stages").glob("*/stage.json"))
        self.assertEqual(sorted(s.folder for s in self.registry.stages), folders)
        for stage in self.registry.stages:
            manifest = json.loads((stage.directory / "stage.json").read_text())
            self.assertEqual(stage.number, manifest["number"], stage.folder)
            self.assertEqual(stage.needs, manifest["needs"], stage.folder)
            self.assertEqual(stage.allows, manifest["allows"], stage.folder)
        self.assertEqual(len(set(self.registry.numbers())), len(self.registry.stages))

    def test_each_executable_describes_the_stage_the_registry_names(self):
        for stage in (s for s in self.registry.stages if s.built):
            roles = [r for r in (registry.ANSWER, registry.TEMPLATE) if stage.has_target(r)]
            self.assertIn(registry.TEMPLATE, roles, stage.folder)
            described = [stage.description(template=(r == registry.TEMPLATE)) for r in roles]
            for found in described:
                with self.subTest(stage=stage.folder):
                    self.assertEqual(found["number"], stage.number)
                    self.assertEqual(found["name"], stage.folder)
                    self.assertIn(found["default_block"], found["blocks"])
                    for kind, facts in KIND_FACTS.items():
                        declared = all(v in getattr(stage, k) for k, v in facts.items())
                        self.assertEqual(found["kind"] == kind, declared,
                                         f"{stage.folder}: --describe says {found['kind']}, "
                                         f"stage.json says {stage.needs} / {stage.allows}")
            keys = ("kind", "operation", "size_rule", "versions", "default_block", "options")
            self.assertEqual([{k: d[k] for k in keys} for d in described][1:],
                             [{k: d[k] for k in keys} for d in described][:-1], stage.folder)

    def test_every_target_it_names_is_built(self):
        for stage in (s for s in self.registry.stages if s.built):
            for role in (registry.ANSWER, registry.TEMPLATE, registry.ANSWER_TESTS):
                if stage.has_target(role):
                    self.assertTrue(stage.path(role).is_file(), f"{stage.folder}: {role}")

    def test_a_stage_it_cannot_build_says_why(self):
        for stage in self.registry.stages:
            self.assertEqual(stage.built, stage.why_not_built is None, stage.folder)
            if "nccl" in stage.needs:
                self.assertEqual(stage.built, self.registry.nccl, stage.folder)


if __name__ == "__main__":
    unittest.main()
