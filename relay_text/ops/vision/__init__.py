"""Detection operators, `vision.*`: anchors, box selection, regions of
interest, YOLO (TVM's src/relay/op/vision/)."""
