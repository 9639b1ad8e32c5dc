"""Attribute sets that several operators share, each defined once.

They follow TVM's attribute classes (include/tvm/relay/attrs/nn.h): the
names, their order (a call's signature in diagnostics lists them in it) and
the defaults. The spatial rank comes from the kernel layout (`OIHW`: two
spatial axes).

* `conv_attrs` - Conv1DAttrs, Conv2DAttrs, Conv3DAttrs: `nn.conv1d/2d/3d`,
  their channel-blocked, gemm and winograd forms, `nn.conv2d_backward_weight`,
  `nn.deformable_conv2d` (with `deformable_groups`), `qnn.conv2d`;
* `conv_transpose_attrs` - Conv1D/2D/3DTransposeAttrs: `nn.conv*_transpose`,
  `qnn.conv2d_transpose`;
* `pool_attrs` - MaxPool1D/2D/3DAttrs and AvgPool1D/2D/3DAttrs: `nn.max_pool*`,
  `nn.avg_pool*`, the 2-D pooling gradients, `qnn.avg_pool2d`.
"""

from __future__ import annotations

from ..registry import Attr


def _spatial(kernel_layout: str) -> int:
    return len(kernel_layout) - 2


def conv_attrs(data_layout: str, kernel_layout: str) -> tuple[Attr, ...]:
    """strides, padding, dilation, groups, channels, kernel_size, layouts, out_dtype."""
    k = _spatial(kernel_layout)
    return (
        Attr("strides", "ints", (1,) * k),
        Attr("padding", "ints", (0,) * max(k, 2)),
        Attr("dilation", "ints", (1,) * k),
        Attr("groups", "int", 1),
        Attr("channels", "opt_int", None),
        Attr("kernel_size", "opt_ints", None),
        Attr("data_layout", "str", data_layout),
        Attr("kernel_layout", "str", kernel_layout),
        Attr("out_layout", "str", ""),
        Attr("out_dtype", "opt_dtype", ""),
    )


def conv_transpose_attrs(data_layout: str, kernel_layout: str) -> tuple[Attr, ...]:
    """channels, kernel_size, strides, output_padding, padding, dilation, groups, layouts, out_dtype."""
    k = _spatial(kernel_layout)
    return (
        Attr("channels", "opt_int", None),
        Attr("kernel_size", "opt_ints", None),
        Attr("strides", "ints", (1,) * k),
        Attr("output_padding", "ints", (0,) * k),
        Attr("padding", "ints", (0,) * k),
        Attr("dilation", "ints", (1,) * k),
        Attr("groups", "int", 1),
        Attr("data_layout", "str", data_layout),
        Attr("kernel_layout", "str", kernel_layout),
        Attr("out_layout", "str", ""),
        Attr("out_dtype", "opt_dtype", ""),
    )


def inserted(attrs: tuple[Attr, ...], after: str, *extra: Attr) -> tuple[Attr, ...]:
    """`attrs` with `extra` placed after the attribute named `after`
    (`deformable_groups` after `dilation`); "" puts them first."""
    at = 0 if not after else next(i for i, a in enumerate(attrs) if a.name == after) + 1
    return (*attrs[:at], *extra, *attrs[at:])


CONV1D_ATTRS = conv_attrs("NCW", "OIW")
CONV2D_ATTRS = conv_attrs("NCHW", "OIHW")
CONV3D_ATTRS = conv_attrs("NCDHW", "OIDHW")
CONV1D_TRANSPOSE_ATTRS = conv_transpose_attrs("NCW", "IOW")
CONV2D_TRANSPOSE_ATTRS = conv_transpose_attrs("NCHW", "IOHW")
CONV3D_TRANSPOSE_ATTRS = conv_transpose_attrs("NCDHW", "IODHW")


def pool_attrs(layout: str, *, avg: bool) -> tuple[Attr, ...]:
    """MaxPool1D/2D/3DAttrs; AvgPool*Attrs add `count_include_pad`."""
    k = len(layout) - 2
    attrs = (
        Attr("pool_size", "ints"),
        Attr("strides", "ints", (1,) * k),
        Attr("dilation", "ints", (1,) * k),
        Attr("padding", "ints", (0,) * k),
        Attr("layout", "str", layout),
        Attr("out_layout", "str", ""),
        Attr("ceil_mode", "bool", False),
    )
    return (*attrs, Attr("count_include_pad", "bool", False)) if avg else attrs


MAX_POOL2D_ATTRS = pool_attrs("NCHW", avg=False)
AVG_POOL2D_ATTRS = pool_attrs("NCHW", avg=True)
