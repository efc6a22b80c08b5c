"""A compiler and a corpus for lighthouse's test bench, from a package of
their own: what a project building its compiler on lighthouse ships to
measure it against lighthouse's pipelines and the usual peers.

`tuned` is lighthouse with the JIT's settings of a variant; `attention` is
scaled dot-product attention at the shapes of a few well-known models.
"""

import numpy as np
from lighthouse.suite import Case, CaseInfo, Compiler, Corpus, Option
from lighthouse.suite.case import to_torch

#: The variants of `tuned`: options of `lighthouse.compile`.
VARIANTS = {
    "unrolled": {"unroll_loops": True},
    "o1": {"opt_level": 1},
}


class TunedLighthouse(Compiler):
    """lighthouse's default pipeline with other LLVM settings."""

    takes = ("torch",)

    @classmethod
    def variants(cls):
        return sorted(VARIANTS)

    def compile(self, case, form):
        import lighthouse

        options = VARIANTS[self.variant or "unrolled"]
        compiled = lighthouse.compile(case.form("torch"), tuple(to_torch(case.inputs)), **options)
        return lambda inputs: compiled(*inputs)

    def failed_ops(self, error):
        return list(getattr(error, "ops", []))


#: (batch, heads, sequence, head size) of attention in models people run.
SHAPES = {
    "bert_base": (1, 12, 128, 64),
    "gpt2_small": (1, 12, 256, 64),
    "vit_tiny": (1, 3, 197, 64),
}


class Attention(Corpus):
    description = "scaled dot-product attention at the shapes of a few models"
    options = {"causal": Option("false", "mask the future (true or false)")}

    def cases(self):
        return [
            CaseInfo(name, op="scaled_dot_product_attention", family="attention") for name in SHAPES
        ]

    def load(self, name):
        import torch

        causal = self.options["causal"] == "true"

        class SDPA(torch.nn.Module):
            def forward(self, q, k, v):
                return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)

        rng = np.random.default_rng(sorted(SHAPES).index(name))
        inputs = [rng.standard_normal(SHAPES[name]).astype(np.float32) for _ in range(3)]
        return Case(
            name,
            inputs,
            torch=SDPA().eval(),
            rtol=1e-3,
            atol=1e-4,
            op="scaled_dot_product_attention",
            family="attention",
        )
