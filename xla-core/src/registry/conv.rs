//! Convolution specs: Conv and its general-padding, general-dimension and dilated forms.

use super::{op, opt, req, AttrKind as K, AttrSpec, Form, OpKind, OpSpec, Typing};

const CONV_COMMON: [AttrSpec; 4] = [
    opt("feature_group_count", K::Int),
    opt("batch_group_count", K::Int),
    opt("precision_config", K::Precision),
    opt("preferred_element_type", K::Type),
];
const CONV: &[AttrSpec] = &[
    req("window_strides", K::Ints),
    req("padding", K::PaddingKind),
    CONV_COMMON[0],
    CONV_COMMON[1],
    CONV_COMMON[2],
    CONV_COMMON[3],
];
const CONV_GP: &[AttrSpec] = &[
    req("window_strides", K::Ints),
    req("padding", K::Pairs),
    CONV_COMMON[0],
    CONV_COMMON[1],
    CONV_COMMON[2],
    CONV_COMMON[3],
];
const CONV_GD: &[AttrSpec] = &[
    req("window_strides", K::Ints),
    req("padding", K::PaddingKind),
    req("dimension_numbers", K::ConvDims),
    CONV_COMMON[0],
    CONV_COMMON[1],
    CONV_COMMON[2],
    CONV_COMMON[3],
];
const CONV_G: &[AttrSpec] = &[
    req("window_strides", K::Ints),
    req("padding", K::Pairs),
    req("dimension_numbers", K::ConvDims),
    CONV_COMMON[0],
    CONV_COMMON[1],
    CONV_COMMON[2],
    CONV_COMMON[3],
];
const CONV_GDIL: &[AttrSpec] = &[
    req("window_strides", K::Ints),
    req("padding", K::Pairs),
    opt("lhs_dilation", K::Ints),
    opt("rhs_dilation", K::Ints),
    req("dimension_numbers", K::ConvDims),
    CONV_COMMON[0],
    CONV_COMMON[1],
    CONV_COMMON[2],
    CONV_COMMON[3],
    opt("window_reversal", K::Bools),
];

pub(super) const CONVOLUTION: [OpSpec; 5] = [
    op(
        "Conv",
        OpKind::Conv,
        "stablehlo.convolution",
        Form::Operands(2),
        "(lhs, rhs)",
        CONV,
        Typing::Same { with_result: false },
    ),
    op(
        "ConvWithGeneralPadding",
        OpKind::ConvWithGeneralPadding,
        "stablehlo.convolution",
        Form::Operands(2),
        "(lhs, rhs)",
        CONV_GP,
        Typing::Same { with_result: false },
    ),
    op(
        "ConvWithGeneralDimensions",
        OpKind::ConvWithGeneralDimensions,
        "stablehlo.convolution",
        Form::Operands(2),
        "(lhs, rhs)",
        CONV_GD,
        Typing::Same { with_result: false },
    ),
    op(
        "ConvGeneral",
        OpKind::ConvGeneral,
        "stablehlo.convolution",
        Form::Operands(2),
        "(lhs, rhs)",
        CONV_G,
        Typing::Same { with_result: false },
    ),
    op(
        "ConvGeneralDilated",
        OpKind::ConvGeneralDilated,
        "stablehlo.convolution",
        Form::Operands(2),
        "(lhs, rhs)",
        CONV_GDIL,
        Typing::Same { with_result: false },
    ),
];
