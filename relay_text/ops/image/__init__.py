"""Image operators, `image.*`: resizing, cropping, sampling grids, dilation
(TVM's src/relay/op/image/)."""
