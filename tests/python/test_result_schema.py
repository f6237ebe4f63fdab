"""The Python side of the one description of a run result
(runners/run_result_schema.json): the worker's results and the header it
encodes carry exactly the schema's fields (tests/runners/run_result_schema_test.cpp
checks the C++ side), and the worker serves exactly the table's Python runners
(runners/Runners.def)."""
import json
import os
import re
import struct
import sys
import unittest

import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "runners", "python"))
import worker  # noqa: E402

with open(os.path.join(ROOT, "runners", "run_result_schema.json")) as f:
    FIELDS = json.load(f)["fields"]


def header(encoded):
    (n,) = struct.unpack("<I", encoded[:4])
    return json.loads(encoded[4:4 + n])


class ResultSchema(unittest.TestCase):
    def test_new_result_has_every_field(self):
        result = worker.new_result("py-eager")
        self.assertTrue({f["name"] for f in FIELDS} <= set(result))

    def test_encoded_header_has_the_required_fields(self):
        required = {f["name"] for f in FIELDS if f["required"]}
        self.assertEqual(set(header(worker.encode(worker.new_result("py-eager")))), required)

    def test_optional_fields_travel_when_set(self):
        result = worker.new_result("py-eager", rank_digests=[["a"], ["b"]], outputs=[torch.ones(2)], losses=[1.0])
        h = header(worker.encode(result))
        self.assertEqual(h["rank_digests"], [["a"], ["b"]])
        self.assertEqual(h["outputs"][0]["shape"], [2])
        self.assertEqual(h["outputs"][0]["nbytes"], 8)

    def test_statuses_and_stages_are_the_schemas(self):
        values = {f["name"]: set(f["values"]) for f in FIELDS if f["type"] == "enum"}
        with open(os.path.join(ROOT, "runners", "python", "worker.py")) as f:
            source = f.read()
        for status in re.findall(r'status="(\w+)"', source):
            self.assertIn(status, values["status"])
        for stage in re.findall(r'stage="(\w+)"', source):
            self.assertIn(stage, values["stage"])


class RunnerTable(unittest.TestCase):
    def test_worker_serves_the_tables_python_runners(self):
        with open(os.path.join(ROOT, "runners", "Runners.def")) as f:
            rows = re.findall(r'^RUNNER\("([\w-]+)", (\w+),', f.read(), re.M)
        python_rows = {name for name, kind in rows if kind == "python"}
        self.assertEqual(set(worker.RUNNERS), python_rows)


if __name__ == "__main__":
    unittest.main()
