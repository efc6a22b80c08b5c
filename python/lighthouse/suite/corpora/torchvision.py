"""torchvision's models, as users take them from torchvision: every
classification model torchvision ships, its semantic segmentation, video
and object detection models, with random weights (`weights=None`, no
download), at each model's standard input size (that of its pretrained
weights' transforms), batch 1 (`--torchvision-batch`). Needs
`pip install 'lighthouse[zoo]'`.

The models are built by torchvision's own code, seeded, in eval mode, with
their batch norms' statistics measured on one batch (`calibrated`); the
reference is eager PyTorch. Detection models take a batch of images and
return their boxes, labels and scores; their post-processing calls
torchvision's compiled NMS, which eager PyTorch has only where torchvision's
compiled ops load (see `import_torchvision`); elsewhere those cases are
invalid, with eager's error as the reason. torchvision's quantized models
(int8 kernels of PyTorch's own) and optical flow models are not listed.
"""

import importlib
import sys
import types

import numpy as np

from ..case import Case, CaseInfo, InvalidCase
from ..plugins import Corpus, Option
from .models import calibrated

__all__ = ["TorchvisionModels", "import_torchvision"]

#: torchvision's model modules listed, and each one's family in reports.
_FAMILIES = {
    "classification": "torchvision.models",
    "segmentation": "torchvision.models.segmentation",
    "video": "torchvision.models.video",
    "detection": "torchvision.models.detection",
}

#: Frames of a video clip: the clip length torchvision's video weights were
#: evaluated at for r3d_18, mc3_18, r2plus1d_18 and MViT, and at least the
#: least any video model takes (S3D's 14).
VIDEO_FRAMES = 16

#: The image size of detection models, whose weights' transforms give none:
#: torchvision's detection models resize every image to their own size
#: range (800 to 1333 pixels for the R-CNNs, 320 or 300 for SSD) within.
DETECTION_SIZE = 320

#: Outputs of deep networks of random weights against eager, each within
#: RTOL of itself plus ATOL of its output's largest magnitude (`scaled_atol`:
#: their scale is not known before they run: AlexNet's largest logit is
#: 0.03, ResNet-18's 1.5). Eager float32 is within 1.1e-6 of the largest
#: magnitude of float64's outputs (ResNet-18; ConvNeXt-T 8e-7); ATOL leaves
#: a compiler's summation orders 1000 times that over some fifty layers.
RTOL, ATOL = 1e-3, 1e-3

#: Models whose eager float32 outputs are farther from float64's than
#: ATOL's premise, each with its ATOL and why. DeepLabV3-ResNet101: eager
#: float32 is 9.3e-4 of its largest magnitude from float64 (its 101 layers
#: and dilated head amplify rounding), onnxruntime on its ONNX form 6.2e-4,
#: lighthouse's ONNX path 8.8e-4; the ONNX form's folded batch norms put
#: both 1.0-1.2e-3 from eager float32.
WIDER_ATOL = {"deeplabv3_resnet101": 3e-3}


def import_torchvision():
    """Imports `torchvision`, also where its compiled ops cannot load.

    The torchvision wheel built for a torch release links against that
    release's CUDA build; beside the CPU build of the same release its
    compiled library (`torchvision._C`, NMS, RoIAlign, deformable
    convolution) does not load, and torchvision's import then fails where it
    registers fake kernels of those ops ("operator torchvision::nms does not
    exist"). The models are torchvision's Python code and use none of those
    ops but in detection's post-processing, so when the import fails for
    that reason it is done again without registering them: the models
    import, and calling one of those ops raises that it does not exist.

    Raises:
      ImportError: torchvision is not installed, or fails to import for
        another reason.
    """
    try:
        return importlib.import_module("torchvision")
    except ImportError as error:
        raise ImportError(
            f"the torchvision corpus needs torchvision: pip install 'lighthouse[zoo]' ({error})",
            name="torchvision",
        ) from error
    except RuntimeError as error:
        if "torchvision::" not in str(error):
            raise
    for name in [name for name in sys.modules if name.split(".")[0] == "torchvision"]:
        del sys.modules[name]
    # Its fake kernels of the compiled ops, which are absent.
    sys.modules["torchvision._meta_registrations"] = types.ModuleType(
        "torchvision._meta_registrations"
    )
    return importlib.import_module("torchvision")


def _input_shape(family: str, name: str, batch: int):
    """The input shape of model `name`: its weights' crop size (classification,
    video), resize size (segmentation), or `DETECTION_SIZE`."""
    if family == "detection":
        return (batch, 3, DETECTION_SIZE, DETECTION_SIZE)
    models = import_torchvision().models
    transforms = models.get_model_weights(name).DEFAULT.transforms()
    size = getattr(transforms, "crop_size", None) or transforms.resize_size
    height, width = (size * 2)[:2] if len(size) == 1 else size
    if family == "video":
        return (batch, 3, VIDEO_FRAMES, height, width)
    return (batch, 3, height, width)


def _detector(model):
    """`model`, a torchvision detection model, taking a batch of images as one
    tensor and returning each image's boxes, labels and scores as a flat
    tuple (what torch.export and ONNX take)."""
    import torch

    class Detector(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, images):
            found = self.model(list(images))
            return tuple(value for image in found for value in image.values())

    return Detector(model).eval()


def _outputs_as_tuple(model):
    """`model`, a segmentation model returning a dict of outputs, returning
    them as a tuple in the dict's order."""
    import torch

    class Tupled(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, images):
            return tuple(self.model(images).values())

    return Tupled(model).eval()


class TorchvisionModels(Corpus):
    description = (
        "torchvision's classification, segmentation, video and detection models "
        "(random weights, standard input sizes), against eager PyTorch"
    )
    options = {
        "batch": Option(1, "images (or clips) per input", int),
    }

    def cases(self):
        models = import_torchvision().models
        listed = []
        for family, module in _FAMILIES.items():
            for name in models.list_models(module=importlib.import_module(module)):
                listed.append(CaseInfo(name, family=family, op=name))
        return listed

    def load(self, name: str) -> Case:
        import torch

        families = {info.name: info.tags["family"] for info in self.cases()}
        if name not in families:
            raise ValueError(f"the torchvision corpus has no model {name!r}")
        family = families[name]
        models = import_torchvision().models
        shape = _input_shape(family, name, self.options["batch"])
        torch.manual_seed(0)
        kwargs = {"weights": None}
        if family in ("segmentation", "detection"):
            kwargs["weights_backbone"] = None  # Else the backbone's are downloaded.
        try:
            model = models.get_model(name, **kwargs)
        except Exception as error:  # noqa: BLE001 - torchvision's own failure
            raise InvalidCase(f"torchvision could not build {name}: {error}") from None
        # Built without weights, a model takes the size its constructor sets:
        # ViT-H/14's is 224 where its default weights' transforms crop 518.
        size = getattr(model, "image_size", None)
        if family == "classification" and isinstance(size, int):
            shape = (*shape[:2], size, size)
        rng = np.random.default_rng(0)
        inputs = [rng.standard_normal(shape, dtype=np.float32)]
        if family != "detection":
            # Statistics from another batch of two (batch norm in training
            # mode needs more than one value per channel).
            calibration = rng.standard_normal((2, *shape[1:]), dtype=np.float32)
            model = calibrated(model, [torch.from_numpy(calibration)])
        model = model.eval()
        if family == "detection":
            model = _detector(model)
        elif family == "segmentation":
            model = _outputs_as_tuple(model)
        return Case(
            name,
            inputs,
            torch=model,
            rtol=RTOL,
            atol=WIDER_ATOL.get(name, ATOL),
            scaled_atol=True,
            family=family,
            op=name,
        )
