//! Which GPU is `cuda:N`: the mapping from CUDA ordinals to NVML's GPUs, as
//! `CUDA_DEVICE_ORDER` and `CUDA_VISIBLE_DEVICES` make it.
//!
//! NVML (and `nvidia-smi`) number GPUs in PCI bus order. CUDA enumerates them
//! in `CUDA_DEVICE_ORDER` order: `PCI_BUS_ID`, or by default `FASTEST_FIRST`,
//! which NVIDIA documents only as "fastest to slowest order using a simple
//! heuristic" (CUDA C Programming Guide, "CUDA Environment Variables"). This
//! module assumes that heuristic is compute capability, highest first, then
//! PCI bus id, as observed and stated in microsoft/onnxruntime PR #28066; on
//! GPUs that are all the same model the two orders agree, and where they are
//! not, the mapping is marked uncertain rather than presented as fact.
//!
//! Integer entries of `CUDA_VISIBLE_DEVICES` index CUDA's order, not
//! nvidia-smi's (which is why `CUDA_DEVICE_ORDER=PCI_BUS_ID` is the usual
//! advice: anderskm/gputil#18). Its parsing follows PyTorch's mirror of the
//! CUDA driver (`_parse_visible_devices` and `_transform_uuid_to_ordinals` in
//! pytorch/pytorch `torch/cuda/__init__.py`, pinned by `TestVisibleDeviceParses`
//! in its tests): integers are read like `strtoul` (`1gpu2` is 1); the first
//! invalid, negative or out-of-range entry ends the list; a repeated entry
//! hides every GPU; `GPU-` and `MIG-` entries are UUID prefixes that must match
//! exactly one device.

use crate::snapshot::nvidia::{CudaDevice, CudaDevices, DeviceOrder, Gpu};

pub fn map(gpus: &[Gpu], visible_devices: Option<&str>, device_order: Option<&str>) -> CudaDevices {
    let mut notes = Vec::new();
    let order = match device_order {
        None | Some("FASTEST_FIRST") => DeviceOrder::FastestFirst,
        Some("PCI_BUS_ID") => DeviceOrder::PciBusId,
        Some(other) => {
            notes.push(format!(
                "CUDA_DEVICE_ORDER=`{other}` is not one of the documented values FASTEST_FIRST and PCI_BUS_ID; \
                 envdoctor assumes CUDA's default, FASTEST_FIRST"
            ));
            DeviceOrder::FastestFirst
        }
    };
    let enumerated = enumeration_order(gpus, order);
    let all_alike = gpus
        .windows(2)
        .all(|pair| pair[0].name == pair[1].name && pair[0].compute_capability == pair[1].compute_capability);
    let mut certain = order == DeviceOrder::PciBusId || all_alike;
    if !certain {
        notes.push(
            "the GPUs differ and CUDA_DEVICE_ORDER is not PCI_BUS_ID: CUDA numbers them by an undocumented \
             fastest-first heuristic, so cuda:N may not be nvidia-smi's GPU N; set CUDA_DEVICE_ORDER=PCI_BUS_ID"
                .to_string(),
        );
    }
    let selected = match visible_devices {
        None => enumerated.iter().map(|gpu| (*gpu, None)).collect(),
        Some(value) => select(&enumerated, value, &mut notes),
    };
    for (gpu, mig_uuid) in &selected {
        if mig_uuid.is_none() && gpu.mig_mode.is_some_and(|mode| mode.current) {
            certain = false;
            notes.push(format!(
                "GPU {} has MIG mode on: CUDA runs on its MIG devices, not on the whole GPU; \
                 name one with CUDA_VISIBLE_DEVICES=MIG-<uuid>",
                gpu.index
            ));
        }
    }
    CudaDevices {
        order,
        certain,
        cuda_visible_devices: visible_devices.map(str::to_string),
        cuda_device_order: device_order.map(str::to_string),
        devices: selected
            .into_iter()
            .zip(0..)
            .map(|((gpu, mig_uuid), ordinal)| CudaDevice {
                ordinal,
                nvml_index: gpu.index,
                uuid: gpu.uuid.clone(),
                pci_bus_id: gpu.pci_bus_id.clone(),
                name: gpu.name.clone(),
                mig_uuid,
            })
            .collect(),
        notes,
    }
}

fn enumeration_order(gpus: &[Gpu], order: DeviceOrder) -> Vec<&Gpu> {
    let mut enumerated: Vec<&Gpu> = gpus.iter().collect();
    let by_bus = |a: &&Gpu, b: &&Gpu| bus_key(a).cmp(&bus_key(b));
    match order {
        DeviceOrder::PciBusId => enumerated.sort_by(by_bus),
        DeviceOrder::FastestFirst | DeviceOrder::Unknown => enumerated.sort_by(|a, b| {
            capability_key(b.compute_capability.as_deref())
                .cmp(&capability_key(a.compute_capability.as_deref()))
                .then_with(|| by_bus(a, b))
        }),
    }
    enumerated
}

/// PCI bus ids compare as text once their hex digits share a case; a GPU
/// without one keeps its NVML position.
fn bus_key(gpu: &Gpu) -> (String, u32) {
    (
        gpu.pci_bus_id.as_deref().unwrap_or_default().to_ascii_uppercase(),
        gpu.index,
    )
}

fn capability_key(capability: Option<&str>) -> (u32, u32) {
    let Some((major, minor)) = capability.and_then(|text| text.split_once('.')) else {
        return (0, 0);
    };
    (major.parse().unwrap_or(0), minor.parse().unwrap_or(0))
}

type Selected<'a> = Vec<(&'a Gpu, Option<String>)>;

fn select<'a>(enumerated: &[&'a Gpu], value: &str, notes: &mut Vec<String>) -> Selected<'a> {
    let entries: Vec<&str> = value.split(',').map(str::trim).collect();
    let first = entries.first().copied().unwrap_or_default();
    let selected = if first.is_empty() && entries.len() == 1 {
        notes.push("CUDA_VISIBLE_DEVICES is set and empty: CUDA sees no GPU".to_string());
        Vec::new()
    } else if let Some(prefix) = ["GPU-", "MIG-"].into_iter().find(|prefix| first.starts_with(prefix)) {
        // Repeats are found among the names before any is matched (PyTorch's
        // `parse_list_with_prefix`).
        let named: Vec<&str> = entries
            .iter()
            .copied()
            .take_while(|entry| entry.starts_with(prefix))
            .collect();
        if let Some(repeat) = named
            .iter()
            .enumerate()
            .find_map(|(at, entry)| named[..at].contains(entry).then_some(entry))
        {
            notes.push(format!(
                "CUDA_VISIBLE_DEVICES names {repeat} twice: CUDA then sees no GPU at all"
            ));
            return Vec::new();
        }
        if prefix == "GPU-" {
            select_by_uuid(enumerated, &entries, notes)
        } else {
            select_mig(enumerated, &entries, notes)
        }
    } else {
        select_by_ordinal(enumerated, &entries, notes)
    };
    let mut seen = Vec::new();
    for (gpu, mig_uuid) in &selected {
        let key = (gpu.index, mig_uuid.clone());
        if seen.contains(&key) {
            notes.push(format!(
                "CUDA_VISIBLE_DEVICES names GPU {} twice: CUDA then sees no GPU at all",
                gpu.index
            ));
            return Vec::new();
        }
        seen.push(key);
    }
    selected
}

fn truncated(notes: &mut Vec<String>, entry: &str, why: &str) {
    notes.push(format!(
        "CUDA_VISIBLE_DEVICES entry `{entry}` {why}: CUDA ignores it and every entry after it"
    ));
}

fn select_by_ordinal<'a>(enumerated: &[&'a Gpu], entries: &[&str], notes: &mut Vec<String>) -> Selected<'a> {
    // Parsing ends before any index is checked against the GPUs, as in
    // PyTorch's mirror: a repeat after an out-of-range entry still hides them all.
    let mut ordinals: Vec<(i64, &str)> = Vec::new();
    for entry in entries {
        match leading_integer(entry) {
            None => {
                truncated(notes, entry, "is not a number");
                break;
            }
            Some(number) if number < 0 => {
                truncated(notes, entry, "is negative");
                break;
            }
            Some(number) if ordinals.iter().any(|(seen, _)| *seen == number) => {
                notes.push(format!(
                    "CUDA_VISIBLE_DEVICES names {number} twice: CUDA then sees no GPU at all"
                ));
                return Vec::new();
            }
            Some(number) => ordinals.push((number, entry)),
        }
    }
    let mut selected = Vec::new();
    for (number, entry) in ordinals {
        match usize::try_from(number).ok().and_then(|ordinal| enumerated.get(ordinal)) {
            Some(gpu) => selected.push((*gpu, None)),
            None => {
                let count = enumerated.len();
                truncated(notes, entry, &format!("is past the last GPU (there are {count})"));
                break;
            }
        }
    }
    selected
}

/// Like C's `strtol` as CUDA uses it: an optional sign, then digits, and
/// anything after them ignored; `None` when no digit comes first.
fn leading_integer(text: &str) -> Option<i64> {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let digits = unsigned.len() - unsigned.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let magnitude: i64 = unsigned[..digits].parse().unwrap_or(i64::MAX);
    Some(if text.starts_with('-') { -magnitude } else { magnitude })
}

fn select_by_uuid<'a>(enumerated: &[&'a Gpu], entries: &[&str], notes: &mut Vec<String>) -> Selected<'a> {
    let mut selected = Vec::new();
    for entry in entries {
        if !entry.starts_with("GPU-") {
            truncated(notes, entry, "is not a GPU UUID like the entries before it");
            break;
        }
        let matches: Vec<&&Gpu> = enumerated
            .iter()
            .filter(|gpu| gpu.uuid.as_deref().is_some_and(|uuid| uuid.starts_with(entry)))
            .collect();
        match matches.as_slice() {
            [gpu] => selected.push((**gpu, None)),
            [] => {
                truncated(notes, entry, "matches no GPU");
                break;
            }
            _ => {
                truncated(notes, entry, "matches more than one GPU");
                break;
            }
        }
    }
    selected
}

fn select_mig<'a>(enumerated: &[&'a Gpu], entries: &[&str], notes: &mut Vec<String>) -> Selected<'a> {
    let mut selected = Vec::new();
    for entry in entries {
        if !entry.starts_with("MIG-") {
            truncated(notes, entry, "is not a MIG UUID like the entries before it");
            break;
        }
        let matches: Vec<(&Gpu, &str)> = enumerated
            .iter()
            .flat_map(|gpu| gpu.mig_devices.iter().map(move |mig| (*gpu, mig)))
            .filter_map(|(gpu, mig)| Some((gpu, mig.uuid.as_deref()?)))
            .filter(|(_, uuid)| uuid.starts_with(entry))
            .collect();
        match matches.as_slice() {
            [(gpu, uuid)] => selected.push((*gpu, Some(uuid.to_string()))),
            [] => {
                truncated(notes, entry, "matches no MIG device");
                break;
            }
            _ => {
                truncated(notes, entry, "matches more than one MIG device");
                break;
            }
        }
    }
    selected
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::snapshot::nvidia::{MigDevice, PcieLink, Toggle};
    use std::collections::BTreeMap;

    use super::*;

    pub(crate) fn gpu(index: u32, name: &str, capability: &str, bus: &str) -> Gpu {
        Gpu {
            index,
            name: Some(name.to_string()),
            uuid: Some(format!(
                "GPU-{index}{index}{index}{index}aaaa-0000-1111-2222-33334444555{index}"
            )),
            pci_bus_id: Some(format!("00000000:{bus}:00.0")),
            compute_capability: Some(capability.to_string()),
            memory_total_mib: None,
            memory_used_mib: None,
            mig_mode: None,
            mig_devices: Vec::new(),
            ecc_mode: None,
            ecc_uncorrectable_volatile: None,
            ecc_uncorrectable_aggregate: None,
            retired_pages_pending: None,
            remapped_rows: None,
            persistence_mode: None,
            compute_mode: None,
            power_limit_watts: None,
            temperature_celsius: None,
            clock_event_reasons: None,
            pcie: PcieLink::default(),
            nvlinks_active: None,
            query_errors: BTreeMap::new(),
        }
    }

    /// Four identical H100s, as NVML lists them (PCI order).
    fn h100s() -> Vec<Gpu> {
        ["18", "2A", "3A", "5D"]
            .iter()
            .zip(0..)
            .map(|(bus, index)| gpu(index, "NVIDIA H100 80GB HBM3", "9.0", bus))
            .collect()
    }

    /// A workstation: an RTX 3060 (8.6) on the first slot, an A100 (8.0) behind it.
    fn mixed() -> Vec<Gpu> {
        vec![
            gpu(0, "NVIDIA GeForce RTX 3060", "8.6", "01"),
            gpu(1, "NVIDIA A100-PCIE-40GB", "8.0", "02"),
            gpu(2, "Tesla T4", "7.5", "03"),
        ]
    }

    fn nvml_indices(devices: &CudaDevices) -> Vec<u32> {
        devices.devices.iter().map(|device| device.nvml_index).collect()
    }

    #[test]
    fn unset_variables_show_every_gpu_in_pci_order_when_they_are_alike() {
        let devices = map(&h100s(), None, None);
        assert_eq!(devices.order, DeviceOrder::FastestFirst);
        assert!(devices.certain);
        assert_eq!(nvml_indices(&devices), [0, 1, 2, 3]);
        assert_eq!(devices.devices[2].ordinal, 2);
        assert!(devices.notes.is_empty(), "{:?}", devices.notes);
    }

    #[test]
    fn fastest_first_puts_the_highest_capability_first_and_says_it_is_a_guess() {
        let devices = map(&mixed(), None, None);
        assert_eq!(nvml_indices(&devices), [0, 1, 2]);
        let reordered = map(
            &[gpu(0, "Tesla T4", "7.5", "01"), gpu(1, "NVIDIA H100", "9.0", "02")],
            None,
            None,
        );
        assert_eq!(nvml_indices(&reordered), [1, 0]);
        assert!(!reordered.certain);
        assert!(reordered.notes[0].contains("CUDA_DEVICE_ORDER=PCI_BUS_ID"));
    }

    #[test]
    fn pci_bus_id_order_matches_nvidia_smi_and_is_certain() {
        let gpus = [gpu(0, "Tesla T4", "7.5", "01"), gpu(1, "NVIDIA H100", "9.0", "02")];
        let devices = map(&gpus, Some("1"), Some("PCI_BUS_ID"));
        assert!(devices.certain);
        assert_eq!(nvml_indices(&devices), [1]);
        // Under the default order the same variable picks the other GPU.
        assert_eq!(nvml_indices(&map(&gpus, Some("1"), None)), [0]);
    }

    #[test]
    fn integers_are_read_the_way_pytorch_pins_cuda_behaviour() {
        let gpus: Vec<Gpu> = (0..6)
            .map(|index| gpu(index, "A", "8.0", &format!("{index:02}")))
            .collect();
        let parse = |value: &str| nvml_indices(&map(&gpus, Some(value), None));
        // The cases of pytorch's TestVisibleDeviceParses.test_env_var_parsing.
        assert_eq!(parse("1gpu2,2ampere"), [1, 2]);
        assert_eq!(parse("0, 1, 2, -1, 3"), [0, 1, 2]);
        assert_eq!(parse("0, 1, 2, 1"), Vec::<u32>::new());
        assert_eq!(parse("2, +3, -0, 5"), [2, 3, 0, 5]);
        assert_eq!(parse("one,two,3,4"), Vec::<u32>::new());
        assert_eq!(parse("4,3,two,one"), [4, 3]);
        // An ordinal past the last GPU ends the list, as in torch's _device_count_nvml.
        assert_eq!(parse("1,9,2"), [1]);
        // A repeat hides every GPU even after an out-of-range entry.
        assert_eq!(parse("0,9,0"), Vec::<u32>::new());
        assert_eq!(parse(""), Vec::<u32>::new());
    }

    #[test]
    fn every_truncation_is_explained() {
        let devices = map(&h100s(), Some("0,-1,2"), None);
        assert_eq!(nvml_indices(&devices), [0]);
        assert!(
            devices.notes.iter().any(|note| note.contains("`-1` is negative")),
            "{:?}",
            devices.notes
        );
        let devices = map(&h100s(), Some("3,7"), None);
        assert!(
            devices.notes.iter().any(|note| note.contains("there are 4")),
            "{:?}",
            devices.notes
        );
        let devices = map(&h100s(), Some(""), None);
        assert!(
            devices.notes.iter().any(|note| note.contains("sees no GPU")),
            "{:?}",
            devices.notes
        );
        let devices = map(&h100s(), Some("1,1"), None);
        assert!(
            devices.notes.iter().any(|note| note.contains("twice")),
            "{:?}",
            devices.notes
        );
    }

    #[test]
    fn uuid_prefixes_select_one_gpu_each_and_stop_at_the_first_bad_one() {
        let gpus = h100s();
        let devices = map(&gpus, Some("GPU-3333,GPU-1111aaaa"), None);
        assert_eq!(nvml_indices(&devices), [3, 1]);
        assert_eq!(devices.devices[0].uuid, gpus[3].uuid);
        // Every UUID here starts with "GPU-" and so "GPU-" alone is ambiguous.
        assert_eq!(nvml_indices(&map(&gpus, Some("GPU-2222,GPU-"), None)), [2]);
        assert_eq!(nvml_indices(&map(&gpus, Some("GPU-2222,GPU-ffff,GPU-0000"), None)), [2]);
        assert_eq!(nvml_indices(&map(&gpus, Some("GPU-2222,1"), None)), [2]);
        assert_eq!(
            nvml_indices(&map(&gpus, Some("GPU-2222,GPU-2222"), None)),
            Vec::<u32>::new()
        );
    }

    #[test]
    fn mig_uuids_select_slices_and_whole_gpus_in_mig_mode_are_flagged() {
        let mut gpus = h100s();
        gpus[1].mig_mode = Some(Toggle {
            current: true,
            pending: true,
        });
        gpus[1].mig_devices = vec![
            MigDevice {
                index: 0,
                uuid: Some("MIG-aaaa1111-2222-3333-4444-555566667777".to_string()),
                memory_total_mib: Some(9984),
            },
            MigDevice {
                index: 1,
                uuid: Some("MIG-bbbb1111-2222-3333-4444-555566667777".to_string()),
                memory_total_mib: Some(9984),
            },
        ];
        let devices = map(&gpus, Some("MIG-bbbb"), None);
        assert_eq!(nvml_indices(&devices), [1]);
        assert_eq!(
            devices.devices[0].mig_uuid.as_deref(),
            Some("MIG-bbbb1111-2222-3333-4444-555566667777")
        );
        assert!(devices.certain);

        let whole = map(&gpus, None, None);
        assert!(!whole.certain);
        assert!(
            whole.notes.iter().any(|note| note.contains("MIG mode on")),
            "{:?}",
            whole.notes
        );
    }

    #[test]
    fn an_unknown_order_falls_back_to_the_default_and_says_so() {
        let devices = map(&h100s(), None, Some("pci_bus_id"));
        assert_eq!(devices.order, DeviceOrder::FastestFirst);
        assert!(devices.notes[0].contains("not one of the documented values"));
    }
}
