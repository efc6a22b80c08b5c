"""Hugging Face transformers models of the families users run: encoders,
decoders, encoder-decoders, vision and audio models, built by transformers'
own code from configurations written here (random weights, nothing
downloaded), at sequence length 128, batch 1. Needs
`pip install 'lighthouse[zoo]'`.

Each configuration keeps its family's layer widths, heads and layout (the
widths of the family's small members: BERT-base, GPT-2, OPT-125m, T5-small,
Whisper-tiny, ViT-B/16, ...) and 2 of its layers, which only repeat in the
full depth (`--transformers-layers` sets another); decoders share LLaMA's vocabulary of 32000 (the vocabularies of
50k to 150k only make the embedding and the output matrix larger).
Decoders are run two ways, as generation runs them: the whole sequence
(`<name>`, the logits), and one decode step (`<name>_decode`) taking a token
and a key/value cache of 128 past tokens as inputs and giving the logits
and the cache with the token's keys and values appended. The reference is
eager PyTorch.
"""

import inspect

import numpy as np

from ..case import Case, CaseInfo, InvalidCase
from ..plugins import Corpus, Option
from .torchvision import import_torchvision

__all__ = ["TransformersModels"]

#: Tokens of a sequence, and of the past of a decode step.
SEQUENCE = 128

#: Hidden states, logits and caches against eager, each within RTOL of
#: itself plus ATOL of its output's largest magnitude (`scaled_atol`):
#: eager float32 is within 5e-7 (BERT) and 8e-7 (LLaMA) of the largest
#: magnitude of float64's outputs; ATOL leaves a compiler's orders of
#: summation over 768-3072 wide products and its exp and erf 1000 times that.
RTOL, ATOL = 1e-3, 1e-3

_VOCABULARY = 32000

_ENCODER = dict(
    hidden_size=768, num_attention_heads=12, intermediate_size=3072, num_hidden_layers=2
)

#: name: (family, model class, configuration class, configuration, inputs).
#: Inputs by keyword: ("tokens", length) token ids; ("float", shape) normal
#: floats.
_MODELS = {
    # Encoders.
    "bert": ("encoder", "BertModel", "BertConfig", _ENCODER, {"input_ids": ("tokens",)}),
    "roberta": ("encoder", "RobertaModel", "RobertaConfig", _ENCODER, {"input_ids": ("tokens",)}),
    "distilbert": (
        "encoder",
        "DistilBertModel",
        "DistilBertConfig",
        dict(dim=768, n_heads=12, hidden_dim=3072, n_layers=2),
        {"input_ids": ("tokens",)},
    ),
    "albert": (
        "encoder",
        "AlbertModel",
        "AlbertConfig",
        dict(embedding_size=128, **_ENCODER),
        {"input_ids": ("tokens",)},
    ),
    "deberta_v2": (
        "encoder",
        "DebertaV2Model",
        "DebertaV2Config",
        dict(_ENCODER, vocab_size=_VOCABULARY),
        {"input_ids": ("tokens",)},
    ),
    "electra": (
        "encoder",
        "ElectraModel",
        "ElectraConfig",
        dict(
            embedding_size=128,
            hidden_size=256,
            num_attention_heads=4,
            intermediate_size=1024,
            num_hidden_layers=2,
        ),
        {"input_ids": ("tokens",)},
    ),
    # Decoders (each also as a decode step).
    "gpt2": (
        "decoder",
        "GPT2LMHeadModel",
        "GPT2Config",
        dict(n_embd=768, n_head=12, n_layer=2, vocab_size=_VOCABULARY),
        {"input_ids": ("tokens",)},
    ),
    "gpt_neox": (
        "decoder",
        "GPTNeoXForCausalLM",
        "GPTNeoXConfig",
        dict(
            hidden_size=512,
            num_attention_heads=8,
            intermediate_size=2048,
            num_hidden_layers=2,
            vocab_size=_VOCABULARY,
        ),
        {"input_ids": ("tokens",)},
    ),
    "opt": (
        "decoder",
        "OPTForCausalLM",
        "OPTConfig",
        dict(
            hidden_size=768,
            num_attention_heads=12,
            ffn_dim=3072,
            num_hidden_layers=2,
            word_embed_proj_dim=768,
            vocab_size=_VOCABULARY,
        ),
        {"input_ids": ("tokens",)},
    ),
    "llama": (
        "decoder",
        "LlamaForCausalLM",
        "LlamaConfig",
        dict(
            hidden_size=1024,
            num_attention_heads=16,
            num_key_value_heads=4,
            intermediate_size=2816,
            num_hidden_layers=2,
            vocab_size=_VOCABULARY,
        ),
        {"input_ids": ("tokens",)},
    ),
    "mistral": (
        "decoder",
        "MistralForCausalLM",
        "MistralConfig",
        dict(
            hidden_size=1024,
            num_attention_heads=16,
            num_key_value_heads=4,
            intermediate_size=3584,
            num_hidden_layers=2,
            vocab_size=_VOCABULARY,
        ),
        {"input_ids": ("tokens",)},
    ),
    "qwen2": (
        "decoder",
        "Qwen2ForCausalLM",
        "Qwen2Config",
        dict(
            hidden_size=896,
            num_attention_heads=14,
            num_key_value_heads=2,
            intermediate_size=4864,
            num_hidden_layers=2,
            tie_word_embeddings=True,
            vocab_size=_VOCABULARY,
        ),
        {"input_ids": ("tokens",)},
    ),
    "phi": (
        "decoder",
        "PhiForCausalLM",
        "PhiConfig",
        dict(
            hidden_size=1024,
            num_attention_heads=16,
            intermediate_size=4096,
            num_hidden_layers=2,
            partial_rotary_factor=0.5,
            vocab_size=_VOCABULARY,
        ),
        {"input_ids": ("tokens",)},
    ),
    "gemma": (
        "decoder",
        "GemmaForCausalLM",
        "GemmaConfig",
        dict(
            hidden_size=1024,
            num_attention_heads=4,
            num_key_value_heads=1,
            head_dim=256,
            intermediate_size=4096,
            num_hidden_layers=2,
            vocab_size=_VOCABULARY,
        ),
        {"input_ids": ("tokens",)},
    ),
    # Encoder-decoders: the encoder over the sequence, the decoder over 32 tokens.
    "t5": (
        "encoder-decoder",
        "T5Model",
        "T5Config",
        dict(d_model=512, d_kv=64, d_ff=2048, num_heads=8, num_layers=2, num_decoder_layers=2),
        {"input_ids": ("tokens",), "decoder_input_ids": ("tokens", 32)},
    ),
    "bart": (
        "encoder-decoder",
        "BartModel",
        "BartConfig",
        dict(
            d_model=768,
            encoder_attention_heads=12,
            decoder_attention_heads=12,
            encoder_ffn_dim=3072,
            decoder_ffn_dim=3072,
            encoder_layers=2,
            decoder_layers=2,
        ),
        {"input_ids": ("tokens",), "decoder_input_ids": ("tokens", 32)},
    ),
    "whisper": (
        "encoder-decoder",
        "WhisperModel",
        "WhisperConfig",
        dict(
            d_model=384,
            encoder_attention_heads=6,
            decoder_attention_heads=6,
            encoder_ffn_dim=1536,
            decoder_ffn_dim=1536,
            encoder_layers=2,
            decoder_layers=2,
        ),
        # 30 s of 80 mel bins at Whisper's 100 frames a second.
        {"input_features": ("float", (1, 80, 3000)), "decoder_input_ids": ("tokens", 32)},
    ),
    # Vision.
    "vit": ("vision", "ViTModel", "ViTConfig", _ENCODER, {"pixel_values": ("image", 224)}),
    "deit": ("vision", "DeiTModel", "DeiTConfig", _ENCODER, {"pixel_values": ("image", 224)}),
    "swin": (
        "vision",
        "SwinModel",
        "SwinConfig",
        dict(embed_dim=96, depths=[2, 2, 2, 2], num_heads=[3, 6, 12, 24]),
        {"pixel_values": ("image", 224)},
    ),
    "convnext": (
        "vision",
        "ConvNextModel",
        "ConvNextConfig",
        dict(depths=[2, 2, 2, 2], hidden_sizes=[96, 192, 384, 768]),
        {"pixel_values": ("image", 224)},
    ),
    "clip_vision": (
        "vision",
        "CLIPVisionModel",
        "CLIPVisionConfig",
        dict(_ENCODER, patch_size=32),
        {"pixel_values": ("image", 224)},
    ),
    "clip_text": (
        "vision",
        "CLIPTextModel",
        "CLIPTextConfig",
        dict(hidden_size=512, num_attention_heads=8, intermediate_size=2048, num_hidden_layers=2),
        # CLIP's text length.
        {"input_ids": ("tokens", 77)},
    ),
    # Audio: one second at 16 kHz.
    "wav2vec2": (
        "audio",
        "Wav2Vec2Model",
        "Wav2Vec2Config",
        _ENCODER,
        {"input_values": ("float", (1, 16000))},
    ),
    "hubert": (
        "audio",
        "HubertModel",
        "HubertConfig",
        _ENCODER,
        {"input_values": ("float", (1, 16000))},
    ),
}


def _transformers():
    try:
        # transformers imports torchvision when it is installed.
        import_torchvision()
    except ImportError:
        pass
    try:
        import transformers
    except ImportError as error:
        raise InvalidCase(
            f"the transformers corpus needs transformers: pip install 'lighthouse[zoo]' ({error})"
        ) from None
    return transformers


def _with_layers(settings: dict, layers: int) -> dict:
    """`settings` with each of its layer counts (`num_hidden_layers`,
    `n_layers`, `encoder_layers`, ...) set to `layers`."""
    return {k: layers if k.endswith("layers") else v for k, v in settings.items()}


def _inputs(config, spec: dict, rng, batch: int = 1, length: int = SEQUENCE) -> list:
    """The inputs `spec` describes, in its order, drawn from `rng`: token ids
    of `length` (or the spec's own), images, batches of `batch`."""
    inputs = []
    for kind, *size in spec.values():
        if kind == "tokens":
            shape = (batch, size[0] if size else length)
            inputs.append(rng.integers(0, config.vocab_size, shape, dtype=np.int64))
        elif kind == "image":
            inputs.append(rng.standard_normal((batch, 3, size[0], size[0]), dtype=np.float32))
        else:
            inputs.append(rng.standard_normal(size[0], dtype=np.float32))
    return inputs


def _positional(model, names):
    """`model`, called with the inputs `names` in that order as positional
    arguments, returning its outputs as a tuple of tensors, without a cache."""
    import torch

    takes_cache = "use_cache" in inspect.signature(model.forward).parameters

    class Positional(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, *values):
            options = {"use_cache": False} if takes_cache else {}
            outputs = self.model(**dict(zip(names, values)), **options)
            return tuple(v for v in outputs.values() if isinstance(v, torch.Tensor))

    return Positional().eval()


def _decode_step(model, config, layers: int):
    """`model`, a causal language model, as one decode step: called with a
    token and each layer's past keys and values (key 0, value 0, key 1, ...),
    returning the logits and the keys and values with the token's appended."""
    import torch
    from transformers import DynamicCache

    class DecodeStep(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, token, *past):
            cache = DynamicCache(config=config)
            for layer in range(layers):
                cache.update(past[2 * layer], past[2 * layer + 1], layer)
            outputs = self.model(input_ids=token, use_cache=True, cache=cache)
            updated = outputs.past_key_values
            return (
                outputs.logits,
                *(t for layer in updated.layers for t in (layer.keys, layer.values)),
            )

    return DecodeStep().eval()


def _past_shape(model):
    """The shape of one layer's past keys (and values) of `model`: measured
    from the cache it makes of one token."""
    import torch

    with torch.no_grad():
        outputs = model(input_ids=torch.zeros((1, 1), dtype=torch.int64), use_cache=True)
    keys = outputs.past_key_values.layers[0].keys
    return (keys.shape[0], keys.shape[1], SEQUENCE, keys.shape[3])


#: The ways a model is run, by the suffix of its cases' names: (family tag,
#: the model families that have it). "_dynamic": compiled once for any
#: batch and sequence length (encoders, decoders) or batch (vision models), checked
#: at other sizes than it was compiled at; "_decode": one decode step;
#: "_decode_dynamic": one for any length of the past.
_WAYS = {
    "": (None, ("encoder", "decoder", "encoder-decoder", "vision", "audio")),
    "_dynamic": ("dynamic", ("encoder", "decoder", "vision")),
    "_decode": ("decode", ("decoder",)),
    "_decode_dynamic": ("dynamic", ("decoder",)),
}

#: The corpus's cases: (model, way) by case name.
_CASES = {
    base + suffix: (base, suffix)
    for base, (family, *_rest) in _MODELS.items()
    for suffix, (_tag, families) in _WAYS.items()
    if family in families
}

#: Sizes a dynamic case is checked at besides the one it was compiled at:
#: sequence lengths (up to DYNAMIC_LENGTH), batches, past lengths.
OTHER_LENGTHS = (5, 300)
OTHER_BATCHES = (1, 3)
OTHER_PASTS = (17, 500)
DYNAMIC_LENGTH = 512


class TransformersModels(Corpus):
    description = (
        "Hugging Face transformers models (encoders, decoders with decode steps, "
        "encoder-decoders, vision, audio), also compiled for dynamic sizes, from "
        "configurations written here, against eager PyTorch"
    )

    options = {
        "layers": Option(
            2,
            "layers of each stack of layers (12: BERT-base's and ViT-B/16's full depth; "
            "Swin's and ConvNeXt's stages keep their depths)",
            int,
        ),
    }

    def cases(self):
        return [
            CaseInfo(case, family=_WAYS[suffix][0] or _MODELS[base][0], op=base)
            for case, (base, suffix) in _CASES.items()
        ]

    def load(self, name: str) -> Case:
        import torch

        if name not in _CASES:
            raise ValueError(f"the transformers corpus has no model {name!r}")
        base, suffix = _CASES[name]
        family, model_class, config_class, settings, spec = _MODELS[base]
        transformers = _transformers()
        config = getattr(transformers, config_class)(
            **_with_layers(settings, self.options["layers"])
        )
        torch.manual_seed(0)
        model = getattr(transformers, model_class)(config).eval()
        options = {}
        if suffix in ("", "_dynamic"):
            module = _positional(model, list(spec))

            def inputs(batch=1, length=SEQUENCE):
                return _inputs(
                    config, spec, np.random.default_rng(batch * 1000 + length), batch, length
                )

            if suffix == "":
                values = inputs()
            elif family == "vision":
                values = inputs(batch=2)
                options["dynamic"] = {0: {0: ("batch", 1, 8)}}
                options["also_at"] = [inputs(batch=b) for b in OTHER_BATCHES]
            else:
                values = inputs(batch=2)
                options["dynamic"] = {0: {0: ("batch", 1, 8), 1: ("sequence", 2, DYNAMIC_LENGTH)}}
                options["also_at"] = [
                    inputs(batch=b, length=n) for b, n in zip(OTHER_BATCHES, OTHER_LENGTHS)
                ]
        else:
            layers = config.num_hidden_layers
            batch, heads, _, width = _past_shape(model)
            module = _decode_step(model, config, layers)

            def inputs(past_length=SEQUENCE):
                rng = np.random.default_rng(past_length)
                token = rng.integers(0, config.vocab_size, (1, 1), dtype=np.int64)
                shape = (batch, heads, past_length, width)
                return [
                    token,
                    *(rng.standard_normal(shape, dtype=np.float32) for _ in range(2 * layers)),
                ]

            values = inputs()
            if suffix == "_decode_dynamic":
                past = ("past", 2, 2 * DYNAMIC_LENGTH)
                options["dynamic"] = {i: {2: past} for i in range(1, 2 * layers + 1)}
                options["also_at"] = [inputs(n) for n in OTHER_PASTS]
        tag = _WAYS[suffix][0] or family
        return Case(
            name,
            values,
            torch=module,
            rtol=RTOL,
            atol=ATOL,
            scaled_atol=True,
            family=tag,
            op=base,
            **options,
        )
